import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { inboxConnections, inboxes } from "@/db/schema";
import type { InboxRow } from "./service";

export type ConnectionRow = typeof inboxConnections.$inferSelect;

/**
 * An inbox's connections: the channel addresses it sends and receives over (its email address
 * today; a phone number, a Telegram bot, a Slack installation as those channels come). The inbox
 * stays the owner of threads, keys' `inboxIds`, agents and webhooks; a connection only routes.
 */
export async function connectionsOf(db: DbOrTx, inboxId: string): Promise<ConnectionRow[]> {
  return db.select().from(inboxConnections).where(eq(inboxConnections.inboxId, inboxId));
}

/** The inbox connected on `channel` at `address` (any organization; inbound routing), or null. */
export async function inboxByConnection(db: DbOrTx, channel: string, address: string): Promise<InboxRow | null> {
  const [row] = await db
    .select({ inbox: inboxes })
    .from(inboxConnections)
    .innerJoin(inboxes, eq(inboxes.id, inboxConnections.inboxId))
    .where(
      and(
        eq(inboxConnections.channel, channel as ConnectionRow["channel"]),
        eq(inboxConnections.address, address),
        eq(inboxConnections.status, "active"),
      ),
    );
  return row?.inbox ?? null;
}

/** Binds `address` on `channel` to the inbox, in the caller's transaction (the inbox's creation, a connect). */
export async function addConnection(
  tx: DbOrTx,
  inbox: Pick<InboxRow, "id" | "orgId">,
  channel: ConnectionRow["channel"],
  address: string,
  secretCiphertext: string | null = null,
): Promise<ConnectionRow> {
  const [row] = await tx
    .insert(inboxConnections)
    .values({ orgId: inbox.orgId, inboxId: inbox.id, channel, address, secretCiphertext })
    .returning();
  if (!row) throw new Error("connection insert returned nothing");
  return row;
}
