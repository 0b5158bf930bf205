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
  const [event] = await appendEvents(tx, [input]);
  if (!event) throw new Error("ledger insert returned nothing");
  return event;
}

/**
 * Appends several events in one transaction, in order, with a fixed number of statements however
 * many there are: per partition one counter upsert that reserves the whole run of `seq` numbers,
 * then one multi-row insert, one wake-up and one webhook look-up for all of them. Events of one
 * partition get consecutive numbers in the order given.
 */
export async function appendEvents(tx: DbOrTx, inputs: readonly AppendInput[]): Promise<LedgerEvent[]> {
  if (inputs.length === 0) return [];
  // Partition rows are locked in one order (sorted keys), so two such transactions cannot deadlock.
  const groups = new Map<string, { orgId: string; partitionKey: string; indexes: number[] }>();
  inputs.forEach((input, i) => {
    const key = `${input.orgId}\u0000${input.partitionKey}`;
    const group = groups.get(key);
    if (group) group.indexes.push(i);
    else groups.set(key, { orgId: input.orgId, partitionKey: input.partitionKey, indexes: [i] });
  });
  const seqs: number[] = [];
  for (const [, group] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const n = group.indexes.length;
    const [partition] = await tx
      .insert(ledgerPartitions)
      .values({ orgId: group.orgId, partitionKey: group.partitionKey, lastSeq: n })
      .onConflictDoUpdate({
        target: [ledgerPartitions.orgId, ledgerPartitions.partitionKey],
        set: { lastSeq: sql`${ledgerPartitions.lastSeq} + ${n}` },
      })
      .returning({ seq: ledgerPartitions.lastSeq });
    if (!partition) throw new Error("ledger partition upsert returned nothing");
    group.indexes.forEach((index, i) => (seqs[index] = partition.seq - n + 1 + i));
  }
  const now = new Date();
  const rows = inputs.map((input, i) => ({
    eventId: newEventId(),
    orgId: input.orgId,
    type: input.type,
    partitionKey: input.partitionKey,
    seq: seqs[i] ?? 0,
    inboxId: input.inboxId ?? null,
    threadId: input.threadId ?? null,
    messageId: input.messageId ?? null,
    outboundMessageId: input.outboundMessageId ?? null,
    providerMessageId: input.providerMessageId ?? null,
    idempotencyKey: input.idempotencyKey ?? null,
    data: input.data,
    occurredAt: input.occurredAt ?? now,
  }));
  const inserted = await tx.insert(ledgerEvents).values(rows).returning();
  const byId = new Map(inserted.map((e) => [e.eventId, e]));
  const events = rows.map((r) => byId.get(r.eventId)).filter((e): e is LedgerEvent => e !== undefined);
  if (events.length !== inputs.length) throw new Error("ledger insert returned fewer rows than it was given");
  // Delivered on commit to every listening process (long-polling readers wake on it).
  for (const orgId of new Set(inputs.map((i) => i.orgId)))
    await tx.execute(sql`select pg_notify('svc_ledger', ${orgId})`);
  // Webhook deliveries are queued in the same transaction.
  await enqueueDeliveries(tx, events);
  return events;
}
