import { randomBytes } from "node:crypto";
import { type Placeholder, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { ledgerEvents, ledgerPartitions } from "@/db/schema";
import { enqueueDeliveries, enqueueDeliveriesCtes } from "@/lib/webhooks/dispatcher";
import { LEDGER_CHANNEL } from "./notify";
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

/** An event's row but its `seq` (given by its partition's counter). */
function eventRow(input: AppendInput, now: Date) {
  return {
    eventId: newEventId(),
    orgId: input.orgId,
    type: input.type,
    partitionKey: input.partitionKey,
    inboxId: input.inboxId ?? null,
    threadId: input.threadId ?? null,
    messageId: input.messageId ?? null,
    outboundMessageId: input.outboundMessageId ?? null,
    providerMessageId: input.providerMessageId ?? null,
    idempotencyKey: input.idempotencyKey ?? null,
    data: input.data,
    occurredAt: input.occurredAt ?? now,
  };
}

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
  const rows = inputs.map((input, i) => ({ ...eventRow(input, now), seq: seqs[i] ?? 0 }));
  const inserted = await tx.insert(ledgerEvents).values(rows).returning();
  const byId = new Map(inserted.map((e) => [e.eventId, e]));
  const events = rows.map((r) => byId.get(r.eventId)).filter((e): e is LedgerEvent => e !== undefined);
  if (events.length !== inputs.length) throw new Error("ledger insert returned fewer rows than it was given");
  // Delivered on commit to every listening process (long-polling readers wake on it).
  for (const orgId of new Set(inputs.map((i) => i.orgId)))
    await tx.execute(sql`select pg_notify(${LEDGER_CHANNEL}, ${orgId})`);
  // Webhook deliveries are queued in the same transaction.
  await enqueueDeliveries(tx, events);
  return events;
}

/**
 * `appendEvents` as common table expressions of the caller's one statement, for a change made in
 * one statement with no transaction around it (the send's handoff): the events of one partition,
 * appended only when the caller's CTE named `gate` yields a row. The same rows as `appendEvents`
 * (the partition's counter reserves the run of `seq` numbers and is locked until the statement
 * commits), the same wake-up and the same webhook deliveries. `ctes` follows the caller's own CTEs
 * (after a comma); `touch` must be selected by the statement's final select, or PostgreSQL skips
 * the wake-ups (a CTE that only selects runs only when it is read).
 */
export function appendEventsCtes(inputs: readonly AppendInput[], gate: string): { ctes: SQL; touch: SQL } {
  return appendEventsCtesOf(appendValues(inputs), gate);
}

/** What `appendEventsCtes` binds: the partition, how many events, and the events as one JSON parameter. */
export interface AppendValues {
  orgId: string;
  partitionKey: string;
  count: number;
  rows: string;
}

/** `appendEventsCtes`'s values for `inputs` (events of one partition). */
export function appendValues(inputs: readonly AppendInput[]): AppendValues {
  const first = inputs[0];
  if (!first) throw new Error("appendEventsCtes needs at least one event");
  if (inputs.some((i) => i.orgId !== first.orgId || i.partitionKey !== first.partitionKey))
    throw new Error("appendEventsCtes appends to one partition");
  const now = new Date();
  return {
    orgId: first.orgId,
    partitionKey: first.partitionKey,
    count: inputs.length,
    rows: JSON.stringify(inputs.map((input, ord) => ({ ...eventRow(input, now), ord }))),
  };
}

/**
 * `appendEventsCtes` over its values, each a value or a `sql.placeholder` (a statement built once
 * and filled per call: db/compiled.ts).
 */
export function appendEventsCtesOf(
  v: { [K in keyof AppendValues]: AppendValues[K] | Placeholder },
  gate: string,
): { ctes: SQL; touch: SQL } {
  const webhooks = enqueueDeliveriesCtes("ledger_e");
  const ctes = sql`ledger_p as (
    insert into ledger_partitions (org_id, partition_key, last_seq)
    select ${v.orgId}::uuid, ${v.partitionKey}::text, ${v.count}::bigint where exists (select 1 from ${sql.raw(gate)})
    on conflict (org_id, partition_key) do update set last_seq = ledger_partitions.last_seq + excluded.last_seq
    returning last_seq),
  ledger_e as (
    insert into ledger_events (event_id, org_id, type, partition_key, seq, inbox_id, thread_id, message_id,
      outbound_message_id, provider_message_id, idempotency_key, data, occurred_at)
    select r."eventId", r."orgId", r.type, r."partitionKey", ledger_p.last_seq - ${v.count}::bigint + 1 + r.ord, r."inboxId",
      r."threadId", r."messageId", r."outboundMessageId", r."providerMessageId", r."idempotencyKey", r.data, r."occurredAt"
    from ledger_p cross join jsonb_to_recordset(${v.rows}::jsonb) as r(ord int, "eventId" text, "orgId" uuid,
      type text, "partitionKey" text, "inboxId" uuid, "threadId" uuid, "messageId" uuid, "outboundMessageId" uuid,
      "providerMessageId" text, "idempotencyKey" text, data jsonb, "occurredAt" timestamptz)
    order by r.ord
    returning org_id, event_id, type),
  ledger_n as (select pg_notify(${LEDGER_CHANNEL}, ${v.orgId}) from ledger_p),
  ${webhooks.ctes}`;
  return { ctes, touch: sql`(select count(*) from ledger_n) + ${webhooks.touch}` };
}
