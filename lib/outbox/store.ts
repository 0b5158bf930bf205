import { randomBytes } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { outbox } from "@/db/schema";
import { env } from "@/lib/env";

/**
 * The transactional outbox (table `outbox`): whoever changes something that must also leave the
 * process writes an entry in the same transaction; after the commit the relay performs it.
 */

export type OutboxRow = typeof outbox.$inferSelect;

export interface OutboxEntry {
  orgId: string;
  kind: string;
  subjectId?: string | null;
  payload: Record<string, unknown>;
  body?: Buffer | null;
}

export const leaseMs = () => env.OUTBOX_LEASE_SECONDS * 1000;
export const newLeaseToken = () => randomBytes(12).toString("base64url");

/** The columns an entry is written with (the rest are the table's defaults), leased from `now` when a token is given. */
export function outboxValues(entry: OutboxEntry, leaseToken: string | null, now = new Date()) {
  return {
    orgId: entry.orgId,
    kind: entry.kind,
    subjectId: entry.subjectId ?? null,
    payload: entry.payload,
    body: entry.body ?? null,
    leaseToken,
    leaseUntil: leaseToken ? new Date(now.getTime() + leaseMs()) : null,
  };
}

/**
 * Writes an entry in the caller's transaction, already leased to the caller (`leaseToken`), so
 * the caller performs it right after its commit and no relay takes it over unless the caller's
 * process dies (the lease expires). Without a token the entry is left for the relay.
 */
export async function enqueueOutbox(
  tx: DbOrTx,
  entry: OutboxEntry,
  leaseToken: string | null = null,
): Promise<OutboxRow> {
  const [row] = await tx.insert(outbox).values(outboxValues(entry, leaseToken)).returning();
  if (!row) throw new Error("outbox insert returned nothing");
  return row;
}

/** Marks an entry finished; only the lease holder may (a taken-over entry is not finished twice). */
export async function finishOutbox(
  tx: DbOrTx,
  id: string,
  token: string,
  outcome: { status: "done" | "failed"; error?: string | null },
): Promise<boolean> {
  const done = await tx
    .update(outbox)
    .set({ status: outcome.status, lastError: outcome.error ?? null, doneAt: sql`now()`, leaseUntil: null })
    .where(and(eq(outbox.id, id), eq(outbox.leaseToken, token), eq(outbox.status, "pending")))
    .returning({ id: outbox.id });
  return done.length > 0;
}
