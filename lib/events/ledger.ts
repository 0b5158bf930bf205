import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { ledgerEvents, ledgerPartitions } from "@/db/schema";
import { enqueueDeliveries } from "@/lib/webhooks/dispatcher";
import { type EmittedEventType, EVENT_TYPES, type EventType } from "./contracts";

export { EVENT_TYPES, type EventType };

export interface AppendInput {
  orgId: string;
  /** Only types listed in EMITTED_EVENT_TYPES (the console's pickers offer exactly those). */
  type: EmittedEventType;
  partitionKey: string;
  data: Record<string, unknown>;
  inboxId?: string | null;
  threadId?: string | null;
  messageId?: string | null;
  outboundMessageId?: string | null;
  providerMessageId?: string | null;
  idempotencyKey?: string | null;
  occurredAt?: Date;
}

export type LedgerEvent = typeof ledgerEvents.$inferSelect;

export const newEventId = () => `evt_${randomBytes(16).toString("base64url")}`;

/**
 * Appends one event. Call it with the transaction that makes the change the event reports: the
 * partition's counter row is incremented (and so locked) in that transaction, which keeps `seq`
 * contiguous and unique under concurrent writers, and a rollback takes the event and its number
 * back together.
 */
export async function appendEvent(tx: DbOrTx, input: AppendInput): Promise<LedgerEvent> {
  const [partition] = await tx
    .insert(ledgerPartitions)
    .values({ orgId: input.orgId, partitionKey: input.partitionKey, lastSeq: 1 })
    .onConflictDoUpdate({ target: [ledgerPartitions.orgId, ledgerPartitions.partitionKey], set: { lastSeq: sql`${ledgerPartitions.lastSeq} + 1` } })
    .returning({ seq: ledgerPartitions.lastSeq });
  if (!partition) throw new Error("ledger partition upsert returned nothing");
  const [event] = await tx
    .insert(ledgerEvents)
    .values({
      eventId: newEventId(),
      orgId: input.orgId,
      type: input.type,
      partitionKey: input.partitionKey,
      seq: partition.seq,
      inboxId: input.inboxId ?? null,
      threadId: input.threadId ?? null,
      messageId: input.messageId ?? null,
      outboundMessageId: input.outboundMessageId ?? null,
      providerMessageId: input.providerMessageId ?? null,
      idempotencyKey: input.idempotencyKey ?? null,
      data: input.data,
      occurredAt: input.occurredAt ?? new Date(),
    })
    .returning();
  if (!event) throw new Error("ledger insert returned nothing");
  // Delivered on commit to every listening process (long-polling readers wake on it).
  await tx.execute(sql`select pg_notify('svc_ledger', ${input.orgId})`);
  // Webhook deliveries are queued in the same transaction.
  await enqueueDeliveries(tx, event.orgId, event.eventId, event.type);
  return event;
}
