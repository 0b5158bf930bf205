import { and, eq, isNotNull, lte } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { type LetterStatusValue, type LetterTimelineEntry, letters } from "@/db/schema";
import { settleSpend } from "@/lib/budgets/spend";
import { appendEvents } from "@/lib/events/ledger";
import { log } from "@/lib/log";
import { nextSimulatedStatus, simulatedStepMs } from "@/lib/providers/print/simulated";

/**
 * A letter's status changes, each in the caller's transaction with its timeline entry, its
 * `letter.status_changed` event (ledger partition `letter:<id>`, webhooks) and, at a final status,
 * the settlement of its hold (test letters: released, never charged). The simulated print centre's
 * clock is `next_step_at` in the row: `advanceDueLetter` moves a test letter whose time has come
 * (run by the `simulate-letter` workflow at that time and by the every-minute sweeper), `progress`
 * moves it at once. Every move re-reads the row under its lock, so concurrent movers move it once.
 */

export type LetterRow = typeof letters.$inferSelect;

export const FINAL_STATUSES: readonly LetterStatusValue[] = ["delivered", "undeliverable", "canceled", "failed"];
export const isFinal = (s: LetterStatusValue) => FINAL_STATUSES.includes(s);
export const letterPartition = (id: string) => `letter:${id}`;

const REASONS: Partial<Record<LetterStatusValue, string>> = {
  processing: "The print centre accepted the letter.",
  printable: "The PDF was prepared for printing.",
  submitted: "Handed to the postal carrier.",
  in_transit: "In the carrier's network.",
  delivered: "Delivered to the recipient's address.",
  undeliverable: "The carrier could not deliver the letter (test mode end state).",
};

/** Moves `row` (locked by the caller) to `next`; returns the updated row. */
export async function moveLetter(
  tx: DbOrTx,
  row: LetterRow,
  next: LetterStatusValue,
  reason: string | null = REASONS[next] ?? null,
  now = new Date(),
): Promise<LetterRow> {
  const entry: LetterTimelineEntry = { status: next, at: now.toISOString(), reason };
  const final = isFinal(next);
  const nextStepAt = row.testMode && !final ? new Date(now.getTime() + simulatedStepMs()) : null;
  const [updated] = await tx
    .update(letters)
    .set({
      status: next,
      timeline: [...row.timeline, entry],
      nextStepAt,
      updatedAt: now,
      ...(next === "failed" || next === "undeliverable" ? { failureReason: reason } : {}),
    })
    .where(eq(letters.id, row.id))
    .returning();
  if (!updated) throw new Error("letter update returned nothing");
  if (final && row.holdId)
    await settleSpend(tx, row.holdId, row.testMode || next !== "delivered" ? "released" : "captured");
  await appendEvents(tx, [statusEvent(updated, row.status, entry)]);
  return updated;
}

/** The `letter.status_changed` event of a transition. */
export function statusEvent(row: LetterRow, previous: LetterStatusValue | null, entry: LetterTimelineEntry) {
  return {
    orgId: row.orgId,
    type: "letter.status_changed" as const,
    partitionKey: letterPartition(row.id),
    data: {
      letterId: row.id,
      status: entry.status,
      previousStatus: previous,
      reason: entry.reason,
      at: entry.at,
      testMode: row.testMode,
      to: {
        name: row.toAddress.name ?? row.toAddress.company ?? null,
        city: row.toAddress.city ?? null,
        country: row.toAddress.country ?? null,
      },
    },
  };
}

/**
 * Moves a test letter one step if its `next_step_at` has come (or at once with `force`). Returns
 * the moved row, or null when there was nothing to do (live, final, not yet due, gone).
 */
export async function advanceLetter(
  tx: DbOrTx,
  letterId: string,
  opts: { force?: boolean; now?: Date } = {},
): Promise<LetterRow | null> {
  const now = opts.now ?? new Date();
  const [row] = await tx.select().from(letters).where(eq(letters.id, letterId)).for("update");
  if (!row || !row.testMode || isFinal(row.status)) return null;
  if (!opts.force && (!row.nextStepAt || row.nextStepAt > now)) return null;
  const next = nextSimulatedStatus(row.status);
  if (!next) return null;
  return moveLetter(tx, row, next, REASONS[next] ?? null, now);
}

export const advanceDueLetter = (db: Db, letterId: string, now = new Date()) =>
  db.transaction((tx) => advanceLetter(tx, letterId, { now }));

/** When the letter moves next (ISO), or null when it no longer moves on the clock. */
export async function nextStepOf(db: DbOrTx, letterId: string): Promise<string | null> {
  const [row] = await db
    .select({ at: letters.nextStepAt, status: letters.status })
    .from(letters)
    .where(eq(letters.id, letterId));
  if (!row?.at || isFinal(row.status)) return null;
  return row.at.toISOString();
}

/**
 * The sweeper: moves every test letter whose step is due (one step each per sweep; the workflow
 * normally moved it already). Returns the number moved.
 */
export async function advanceDueLetters(db: Db, now = new Date()): Promise<number> {
  const due = await db
    .select({ id: letters.id })
    .from(letters)
    .where(and(isNotNull(letters.nextStepAt), lte(letters.nextStepAt, now)))
    .limit(500);
  let moved = 0;
  for (const { id } of due) if (await advanceDueLetter(db, id, now)) moved++;
  if (moved > 0) log.info("letters moved by the sweeper", { moved });
  return moved;
}
