import { and, eq, sql } from "drizzle-orm";
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
import { appendEventsCtes } from "@/lib/events/ledger";
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
 * second attempt (after the lease expires) sends the same Message-ID again.
 */
export async function deliverQueuedMessage(
  db: Db,
  entry: OutboxRow,
  token: string,
  known?: MessageRow,
): Promise<MessageRow | null> {
  const payload = entry.payload as unknown as DeliverPayload;
  const message = known ?? (await db.select().from(messages).where(eq(messages.id, payload.messageId)))[0];
  if (!message || message.status !== "queued" || !entry.body) {
    await finishOutbox(db, entry.id, token, {
      status: "done",
      error: message ? `message is ${message.status}` : "message deleted",
    });
    return message ?? null;
  }
  let result: DeliveryReceipt | null = null;
  let error: string | null = null;
  try {
    const deliver = channelAdapter(message.channel).deliver;
    if (!deliver) throw new Error(`the ${message.channel} channel delivers nothing after the commit`);
    result = await deliver({ body: entry.body, envelope: payload.envelope, messageKey: payload.messageIdHeader });
  } catch (err) {
    if (err instanceof RetryLater) {
      // The provider asked for a later call (Telegram's 429 `retry_after`): the message stays
      // queued and the entry is due again then; no attempt is counted, nothing is dropped.
      log.info("outbound transport asked to retry later", {
        messageId: message.id,
        retryAfterMs: err.retryAfterMs,
      });
      await db
        .update(outbox)
        .set({ leaseUntil: new Date(Date.now() + err.retryAfterMs), lastError: err.message })
        .where(and(eq(outbox.id, entry.id), eq(outbox.leaseToken, token), eq(outbox.status, "pending")));
      return message;
    }
    log.warn("outbound transport failed", {
      messageId: message.id,
      inboxId: message.inboxId,
      err: err instanceof Error ? err.message : String(err),
    });
    error = "transport_failed";
  }
  const status: MessageRow["status"] = error ? "failed" : "sent";
  const outcomes =
    status === "sent"
      ? [...(result?.outcomes ?? []), ...unavailableBounces(channelAdapter(message.channel), payload.unavailable)]
      : [];
  const channel = channelAdapter(message.channel);
  const set = {
    status,
    error,
    providerMessageId: result?.providerMessageId ?? null,
    outcome: status === "sent" ? foldOutcome("accepted", outcomes) : null,
    channelMetadata: channel.outcomeMetadata(message.channelMetadata, { receipt: result, outcomes }),
    sentAt: new Date(),
  };
  if (status === "sent" && !outcomes.some((o) => o.kind === "complained"))
    return markSentInOneStatement(db, entry.id, token, { ...message, ...set }, outcomes, payload.attachmentCount);
  return db.transaction(async (tx) => {
    if (!(await finishOutbox(tx, entry.id, token, { status: error ? "failed" : "done", error }))) return null;
    // One update: the status, the outcome (accepted, then the transport's immediate outcomes) and the metadata.
    const [row] = await tx.update(messages).set(set).where(eq(messages.id, message.id)).returning();
    if (!row || status !== "sent") return row ?? null;
    return applyOutcomesInTx(tx, row, outcomes, {
      sent: { attachmentCount: payload.attachmentCount },
      metadataApplied: true,
    });
  });
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
  const done = db
    .update(outbox)
    .set({ status: "done", lastError: null, doneAt: sql`now()`, leaseUntil: null })
    .where(and(eq(outbox.id, entryId), eq(outbox.leaseToken, token), eq(outbox.status, "pending")))
    .returning({ id: outbox.id });
  const { status, error, providerMessageId, outcome, channelMetadata, sentAt } = sent;
  const update = db
    .update(messages)
    .set({ status, error, providerMessageId, outcome, channelMetadata, sentAt })
    .where(and(eq(messages.id, sent.id), sql`exists (select 1 from o)`))
    .returning();
  const ledger = appendEventsCtes(outcomeEvents(sent, outcomes, { attachmentCount }), "m");
  const events = JSON.stringify(
    outcomes.map((o) => ({ id: uuidv7(), type: o.providerType, recipient: o.recipient, at: o.at, details: o.detail })),
  );
  const [raw] = rowsOf<Record<string, unknown>>(
    await db.execute(sql`with o as (${done.getSQL()}), m as (${update.getSQL()}),
      x as (
        insert into outbound_events (id, org_id, message_id, type, recipient, provider_message_id, occurred_at, details)
        select r.id, m.org_id, m.id, r.type, r.recipient, m.provider_message_id, r.at, r.details
        from m cross join jsonb_to_recordset(${events}::jsonb) as r(id uuid, type text, recipient text, at timestamptz, details jsonb)),
      ${ledger.ctes}
      select m.*, ${ledger.touch} as woken from m`),
  );
  return raw ? rowOf(messages, raw) : null;
}
