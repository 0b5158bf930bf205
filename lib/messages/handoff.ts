import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { uuidv7 } from "@/db/ids";
import { rowsOf } from "@/db/client";
import { rowOf } from "@/db/rows";
import { messages, outbox } from "@/db/schema";
import { log } from "@/lib/log";
import { finishOutbox, type OutboxRow } from "@/lib/outbox/store";
import { type ChannelAdapter, channelAdapter } from "@/lib/channels";
import { type DeliveryOutcome, type DeliveryReceipt, foldOutcome, RetryLater } from "@/lib/channels/port";
import { applyOutcomesInTx, outcomeEvents } from "./outcomes";
import { appendEventsCtes, appendEventsCtesOf, appendValues } from "@/lib/events/ledger";
import { compiled } from "@/db/compiled";
import type { MessageRow } from "./store";

/** The payload of a `message.deliver` outbox entry; the channel's wire form (email: signed MIME) is the entry's `body`. */
export interface DeliverPayload {
  messageId: string;
  messageIdHeader: string;
  envelope: { from: string; to: string[] };
  /** Recipients that are inboxes of this service but do not receive now: bounced once the send is `sent`. */
  unavailable: { address: string; status: string }[];
  attachmentCount: number;
}

export const DELIVER_KIND = "message.deliver";

/** The outcomes, in the message's channel's terms, for inboxes of this service that do not receive (paused, deleted). */
export const unavailableBounces = (
  channel: Pick<ChannelAdapter, "unavailable">,
  unavailable: DeliverPayload["unavailable"],
): DeliveryOutcome[] => unavailable.map(({ address, status }) => channel.unavailable(address, status));

/**
 * The handoff of a committed message (`queued`, its outbox entry leased to the caller): the signed
 * wire form goes to its channel's `deliver` (email: the transport); then, in one transaction, the
 * message becomes `sent` (with `message.sent` and the transport's immediate outcomes, e.g. the
 * embedded transport's Delivery) or `failed`, and the entry `done`. Returns the message as it
 * ended, or null when another relay took the lease over (it records the outcome). `known` is the
 * row the caller has just committed (the send request), saving its re-read.
 * A crash after the transport accepted and before that commit is the one window in which a
 * second attempt (after the lease expires) sends the same Message-ID again (for the relay's batch,
 * `deliverQueuedMessages`, the window holds the messages of one slice of `RECORD_EVERY`).
 */
export async function deliverQueuedMessage(
  db: Db,
  entry: OutboxRow,
  token: string,
  known?: MessageRow,
): Promise<MessageRow | null> {
  const payload = entry.payload as unknown as DeliverPayload;
  const message = known ?? (await db.select().from(messages).where(eq(messages.id, payload.messageId)))[0];
  if (!message || message.status !== "queued" || !entry.body) return settleIrregular(db, entry, token, message);
  const attempt = await attemptDelivery(entry, message);
  if (attempt instanceof RetryLater) return retryLater(db, entry, token, message, attempt);
  if (oneStatement(attempt))
    return markSentInOneStatement(db, entry.id, token, attempt.sent, attempt.outcomes, payload.attachmentCount);
  return recordInTx(db, entry, token, attempt);
}

/** An entry whose message is gone, no longer `queued` or has no wire form: finished, nothing sent. */
async function settleIrregular(db: Db, entry: OutboxRow, token: string, message: MessageRow | undefined) {
  await finishOutbox(db, entry.id, token, {
    status: "done",
    error: message ? `message is ${message.status}` : "message deleted",
  });
  return message ?? null;
}

/** What a handoff came to: the message as it is to be recorded (`sent` or `failed`) and the channel's outcomes. */
interface Attempt {
  sent: MessageRow;
  outcomes: DeliveryOutcome[];
}

/**
 * The wire form to the message's channel, and what to record: `sent` with the channel's immediate
 * outcomes (and the bounces of unavailable internal recipients), or `failed`; or the provider's
 * `RetryLater` when it asked to be called again later.
 */
async function attemptDelivery(entry: OutboxRow, message: MessageRow): Promise<Attempt | RetryLater> {
  const payload = entry.payload as unknown as DeliverPayload;
  const channel = channelAdapter(message.channel);
  let result: DeliveryReceipt | null = null;
  let error: string | null = null;
  try {
    if (!channel.deliver) throw new Error(`the ${message.channel} channel delivers nothing after the commit`);
    result = await channel.deliver({
      body: entry.body as Buffer,
      envelope: payload.envelope,
      messageKey: payload.messageIdHeader,
    });
  } catch (err) {
    if (err instanceof RetryLater) return err;
    log.warn("outbound transport failed", {
      messageId: message.id,
      inboxId: message.inboxId,
      err: err instanceof Error ? err.message : String(err),
    });
    error = "transport_failed";
  }
  const status: MessageRow["status"] = error ? "failed" : "sent";
  const outcomes =
    status === "sent" ? [...(result?.outcomes ?? []), ...unavailableBounces(channel, payload.unavailable)] : [];
  const sent: MessageRow = {
    ...message,
    status,
    error,
    providerMessageId: result?.providerMessageId ?? null,
    outcome: status === "sent" ? foldOutcome("accepted", outcomes) : null,
    channelMetadata: channel.outcomeMetadata(message.channelMetadata, { receipt: result, outcomes }),
    sentAt: new Date(),
  };
  return { sent, outcomes };
}

/**
 * The provider asked for a later call (Telegram's 429 `retry_after`): the message stays queued and
 * the entry is due again then; no attempt is counted, nothing is dropped.
 */
async function retryLater(
  db: Db,
  entry: OutboxRow,
  token: string,
  message: MessageRow,
  err: RetryLater,
): Promise<MessageRow> {
  log.info("outbound transport asked to retry later", { messageId: message.id, retryAfterMs: err.retryAfterMs });
  await db
    .update(outbox)
    .set({ leaseUntil: new Date(Date.now() + err.retryAfterMs), lastError: err.message })
    .where(and(eq(outbox.id, entry.id), eq(outbox.leaseToken, token), eq(outbox.status, "pending")));
  return message;
}

/** Whether an attempt's bookkeeping fits the one-statement form (sent; no outcome that needs more, such as a complaint's suppression). */
const oneStatement = (a: Attempt) => a.sent.status === "sent" && !a.outcomes.some((o) => o.kind === "complained");

/** The bookkeeping of any attempt in one transaction: the entry finished, the message updated, its outcomes applied. */
async function recordInTx(db: Db, entry: OutboxRow, token: string, { sent, outcomes }: Attempt) {
  const payload = entry.payload as unknown as DeliverPayload;
  const { status, error, providerMessageId, outcome, channelMetadata, sentAt } = sent;
  return db.transaction(async (tx) => {
    if (!(await finishOutbox(tx, entry.id, token, { status: error ? "failed" : "done", error }))) return null;
    // One update: the status, the outcome (accepted, then the transport's immediate outcomes) and the metadata.
    const [row] = await tx
      .update(messages)
      .set({ status, error, providerMessageId, outcome, channelMetadata, sentAt })
      .where(eq(messages.id, sent.id))
      .returning();
    if (!row || status !== "sent") return row ?? null;
    return applyOutcomesInTx(tx, row, outcomes, {
      sent: { attachmentCount: payload.attachmentCount },
      metadataApplied: true,
    });
  });
}

/** Deliveries of one batch handed to their channels at once. */
const BATCH_PARALLEL = 8;

/**
 * The handoff of a batch of committed messages (the relay's claim of `message.deliver` entries
 * under one lease `token`, e.g. a broadcast's members), a slice of `RECORD_EVERY` at a time: one read
 * of their rows, the wire forms to their channels a few at a time, then the bookkeeping of the
 * accepted ones as one statement per ledger partition (`markManySent`); anything else (a failure, a retry-later, a complaint, a lease
 * lost meanwhile) takes the single message's path. Each entry ends as `deliverQueuedMessage`
 * would have ended it.
 */
export async function deliverQueuedMessages(db: Db, entries: OutboxRow[], token: string): Promise<void> {
  for (let i = 0; i < entries.length; i += RECORD_EVERY)
    await deliverSlice(db, entries.slice(i, i + RECORD_EVERY), token);
}

/**
 * Entries recorded together: what a crash between the transport's acceptance and the record can
 * send again (the same Message-IDs) is at most one slice, against one statement per slice.
 */
const RECORD_EVERY = 25;

async function deliverSlice(db: Db, entries: OutboxRow[], token: string): Promise<void> {
  const ids = entries.map((e) => (e.payload as unknown as DeliverPayload).messageId);
  const rows = ids.length > 0 ? await db.select().from(messages).where(inArray(messages.id, ids)) : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const accepted = new Map<string, { entry: OutboxRow; attempt: Attempt }[]>();
  const queue = [...entries];
  const work = async () => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      const message = byId.get((entry.payload as unknown as DeliverPayload).messageId);
      if (!message || message.status !== "queued" || !entry.body) {
        await settleIrregular(db, entry, token, message);
        continue;
      }
      const attempt = await attemptDelivery(entry, message);
      if (attempt instanceof RetryLater) await retryLater(db, entry, token, message, attempt);
      else if (!oneStatement(attempt)) await recordInTx(db, entry, token, attempt);
      else {
        const partition = `${message.orgId}:${message.inboxId}`;
        accepted.set(partition, [...(accepted.get(partition) ?? []), { entry, attempt }]);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_PARALLEL, entries.length) }, work));
  for (const group of accepted.values()) {
    if (await markManySent(db, token, group)) continue;
    // Some lease was lost (another relay took an entry over): each entry on its own, under its lease.
    for (const { entry, attempt } of group) {
      const { attachmentCount } = entry.payload as unknown as DeliverPayload;
      await markSentInOneStatement(db, entry.id, token, attempt.sent, attempt.outcomes, attachmentCount);
    }
  }
}

/**
 * `markSentInOneStatement` for many messages of one ledger partition: every entry `done` and every
 * message `sent` with its outbound and ledger events, in one statement, only if this process still
 * holds every entry's lease (they are locked first; otherwise nothing is written and false is
 * returned).
 */
async function markManySent(db: Db, token: string, group: { entry: OutboxRow; attempt: Attempt }[]): Promise<boolean> {
  const ids = group.map((g) => g.entry.id);
  const updates = JSON.stringify(
    group.map(({ attempt: { sent } }) => ({
      id: sent.id,
      pmid: sent.providerMessageId,
      outcome: sent.outcome,
      cm: sent.channelMetadata,
      at: sent.sentAt,
    })),
  );
  const events = JSON.stringify(
    group.flatMap(({ attempt: { sent, outcomes } }) =>
      outcomes.map((o) => ({
        id: uuidv7(),
        mid: sent.id,
        type: o.providerType,
        recipient: o.recipient,
        at: o.at,
        details: o.detail,
      })),
    ),
  );
  const ledger = appendEventsCtes(
    group.flatMap(({ entry, attempt: { sent, outcomes } }) =>
      outcomeEvents(sent, outcomes, {
        attachmentCount: (entry.payload as unknown as DeliverPayload).attachmentCount,
      }),
    ),
    "o",
  );
  const idList = sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  const [raw] = rowsOf<{ held: number | string }>(
    await db.execute(sql`with held as (
        select id from outbox where id in (${idList}) and lease_token = ${token} and status = 'pending' for update),
      o as (
        update outbox set status = 'done', last_error = null, done_at = now(), lease_until = null
        where id in (select id from held) and (select count(*) from held) = ${ids.length} returning id),
      m as (
        update messages set status = 'sent', error = null, provider_message_id = r.pmid, outcome = r.outcome,
          channel_metadata = r.cm, sent_at = r.at
        from jsonb_to_recordset(${updates}::jsonb) as r(id uuid, pmid text, outcome text, cm jsonb, at timestamptz)
        where messages.id = r.id and exists (select 1 from o)
        returning messages.id, messages.org_id, messages.provider_message_id),
      x as (
        insert into outbound_events (id, org_id, message_id, type, recipient, provider_message_id, occurred_at, details)
        select r.id, m.org_id, m.id, r.type, r.recipient, m.provider_message_id, r.at, r.details
        from m join jsonb_to_recordset(${events}::jsonb)
          as r(id uuid, mid uuid, type text, recipient text, at timestamptz, details jsonb) on r.mid = m.id),
      ${ledger.ctes}
      select (select count(*) from o) as held, (select count(*) from m) as updated, ${ledger.touch} as woken`),
  );
  return Number(raw?.held ?? 0) === group.length;
}

/**
 * The handoff's bookkeeping for a message the channel accepted, as one statement (no transaction
 * around it; one round trip instead of nine: begin, outbox entry, message, outbound events,
 * ledger partition, ledger events, wake-up, webhook look-up, commit): the outbox entry `done`
 * under the caller's lease, and only if that held, the message as `sent` (`sent`: the row as the
 * update leaves it), the channel's immediate outcomes as outbound events, and `message.sent` with
 * an event per outcome in the ledger (with their webhook deliveries). The same rows as
 * `applyOutcomesInTx`; outcomes that need more (a complaint's suppression) take that path.
 * Null when another relay took the lease over.
 */
async function markSentInOneStatement(
  db: Db,
  entryId: string,
  token: string,
  sent: MessageRow,
  outcomes: DeliveryOutcome[],
  attachmentCount: number,
): Promise<MessageRow | null> {
  const ledger = appendValues(outcomeEvents(sent, outcomes, { attachmentCount }));
  const events = JSON.stringify(
    outcomes.map((o) => ({ id: uuidv7(), type: o.providerType, recipient: o.recipient, at: o.at, details: o.detail })),
  );
  const { status, error, providerMessageId, outcome, channelMetadata, sentAt } = sent;
  const [raw] = rowsOf<Record<string, unknown>>(
    await markSentStatement(db, {
      entryId,
      token,
      messageId: sent.id,
      status,
      error,
      providerMessageId,
      outcome,
      channelMetadata: channelMetadata === null ? null : JSON.stringify(channelMetadata),
      sentAt: sentAt?.toISOString() ?? null,
      events,
      ledgerOrg: ledger.orgId,
      ledgerPartition: ledger.partitionKey,
      ledgerCount: ledger.count,
      ledgerRows: ledger.rows,
    }),
  );
  return raw ? rowOf(messages, raw) : null;
}

/** `markSentInOneStatement`'s statement, built once (db/compiled.ts). */
const markSentStatement = compiled((db) => {
  const p = sql.placeholder;
  const done = db
    .update(outbox)
    .set({ status: "done", lastError: null, doneAt: sql`now()`, leaseUntil: null })
    .where(and(eq(outbox.id, p("entryId")), eq(outbox.leaseToken, p("token")), eq(outbox.status, "pending")))
    .returning({ id: outbox.id });
  const update = db
    .update(messages)
    .set({
      status: p("status"),
      error: p("error"),
      providerMessageId: p("providerMessageId"),
      outcome: p("outcome"),
      // Bare placeholders (filled as given): a column's encoder would turn null into JSON `null` or fail on it.
      channelMetadata: sql`${p("channelMetadata")}::jsonb`,
      sentAt: sql`${p("sentAt")}::timestamptz`,
    } as unknown as Partial<MessageRow>)
    .where(and(eq(messages.id, p("messageId")), sql`exists (select 1 from o)`))
    .returning();
  const ledger = appendEventsCtesOf(
    { orgId: p("ledgerOrg"), partitionKey: p("ledgerPartition"), count: p("ledgerCount"), rows: p("ledgerRows") },
    "m",
  );
  return sql`with o as (${done.getSQL()}), m as (${update.getSQL()}),
      x as (
        insert into outbound_events (id, org_id, message_id, type, recipient, provider_message_id, occurred_at, details)
        select r.id, m.org_id, m.id, r.type, r.recipient, m.provider_message_id, r.at, r.details
        from m cross join jsonb_to_recordset(${p("events")}::jsonb) as r(id uuid, type text, recipient text, at timestamptz, details jsonb)),
      ${ledger.ctes}
      select m.*, ${ledger.touch} as woken from m`;
});
