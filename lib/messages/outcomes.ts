import { and, eq, lt, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { messages, outboundEvents, providerCallbacks, suppressions } from "@/db/schema";
import { channelAdapter, channelOfProvider } from "@/lib/channels";
import {
  type DeliveryOutcome,
  foldOutcome,
  type InboundInteraction,
  type OutcomeKind,
  type ProviderReply,
} from "@/lib/channels/port";
import { notFound } from "@/lib/core/errors";
import { type AppendInput, appendEvents } from "@/lib/events/ledger";
import { log } from "@/lib/log";
import { landInbound, receivingInbox } from "./receive";
import { appendMessageEvent, messageEvent, type MessageEventType, type MessageRow } from "./store";

const EVENT_FOR: Partial<Record<OutcomeKind, MessageEventType>> = {
  delivered: "message.delivered",
  bounced: "message.bounced",
  complained: "message.complained",
  delayed: "message.delayed",
};

/**
 * Applies delivery outcomes (the port's neutral ones) to an outbound message in the caller's
 * transaction, on `row` as it stands there (the caller holds its lock or has just written it): the
 * outbound event rows, in one update the message's `outcome` (their fold, from which the delivery
 * status derives) and its channel's `channelMetadata` (the adapter's `outcomeMetadata`), a ledger
 * event per outcome, and for a complaint a suppression of the recipient (a bounce creates none).
 * `sent` appends the message's `message.sent` first. Ledger events come last: appending one locks
 * the inbox's ledger partition until the commit, and every send of the inbox waits on that lock.
 * `metadataApplied`: the caller has already written the outcome and metadata on the row (the
 * handoff does, in the update that marks it `sent`). Returns the row as updated.
 */
export async function applyOutcomesInTx(
  tx: DbOrTx,
  row: MessageRow,
  outcomes: DeliveryOutcome[],
  opts: { sent?: { attachmentCount: number }; metadataApplied?: boolean } = {},
): Promise<MessageRow> {
  if (outcomes.length === 0) {
    if (opts.sent) await appendMessageEvent(tx, row, "message.sent", opts.sent.attachmentCount);
    return row;
  }
  await tx.insert(outboundEvents).values(
    outcomes.map((o) => ({
      orgId: row.orgId,
      messageId: row.id,
      type: o.providerType,
      recipient: o.recipient,
      providerMessageId: row.providerMessageId,
      occurredAt: o.at,
      details: o.detail,
    })),
  );
  const [updated] = opts.metadataApplied
    ? [row]
    : await tx
        .update(messages)
        .set({
          outcome: foldOutcome(row.outcome, outcomes),
          channelMetadata: channelAdapter(row.channel).outcomeMetadata(row.channelMetadata, { outcomes }),
        })
        .where(eq(messages.id, row.id))
        .returning();
  for (const o of outcomes) {
    if (o.kind !== "complained") continue;
    await tx
      .insert(suppressions)
      .values({
        orgId: row.orgId,
        address: o.recipient.toLowerCase(),
        reason: "complaint",
        sourceMessageId: row.id,
        providerMessageId: row.providerMessageId,
        feedbackType: o.detail.complaintFeedbackType ?? null,
        userAgent: o.detail.complaintUserAgent ?? null,
        lastEventAt: o.at,
      })
      .onConflictDoUpdate({
        target: [suppressions.orgId, suppressions.address],
        set: {
          sourceMessageId: row.id,
          lastEventAt: sql`excluded.last_event_at`,
          feedbackType: sql`excluded.feedback_type`,
        },
      });
  }
  const final = updated ?? row;
  await appendEvents(tx, outcomeEvents(final, outcomes, opts.sent));
  return final;
}

/** The ledger events of outcomes applied to `row`: `message.sent` first when `sent`, then one per outcome that has an event. */
export function outcomeEvents(
  row: MessageRow,
  outcomes: readonly DeliveryOutcome[],
  sent?: { attachmentCount: number },
): AppendInput[] {
  return [
    ...(sent ? [messageEvent(row, "message.sent", sent.attachmentCount)] : []),
    ...outcomes.flatMap((o) => {
      const type = EVENT_FOR[o.kind];
      return type
        ? [messageEvent(row, type, undefined, { recipient: o.recipient, eventType: o.providerType, ...o.detail })]
        : [];
    }),
  ];
}

/** Provider outcomes reported later (SES notifications): one transaction holding the message's row lock. */
export async function applyOutcomes(db: Db, messageId: string, outcomes: DeliveryOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await db.transaction(async (tx) => {
    const [row] = await tx.select().from(messages).where(eq(messages.id, messageId)).for("update");
    if (row) await applyOutcomesInTx(tx, row, outcomes);
  });
}

/**
 * `POST /v1/providers/{provider}/events`: the channel whose provider it is parses (and verifies)
 * the callback into outcomes, applied to the message whose provider id they name, or into inbound
 * traffic landed in its inbox; a callback the provider wants answered in its own format (TwiML)
 * returns that reply.
 */
export async function receiveProviderEvent(
  db: Db,
  provider: string,
  payload: unknown,
  request: { headers: Headers; url: string } | null = null,
): Promise<{ received: true; applied: number } | { reply: ProviderReply }> {
  const channel = channelOfProvider(provider);
  if (!channel?.providerEvent) throw notFound("provider", "provider");
  const event = await channel.providerEvent(provider, payload, {
    db,
    headers: request?.headers ?? null,
    url: request?.url ?? null,
  });
  if (!event) return { received: true, applied: 0 };
  // Applied by the channel already; the provider takes its answer in its own format.
  if ("reply" in event) return { reply: event.reply };
  if ("inbound" in event) {
    const land = async (tx: DbOrTx) => {
      const landed = await landInbound(tx, event.inbound);
      let taps = 0;
      for (const i of event.interactions) if (await landInteraction(tx, i)) taps++;
      return { received: true as const, applied: landed.length + taps };
    };
    const key = event.callbackKey;
    if (!key) return land(db);
    // Once per provider key: the key commits with what the callback landed; a redelivery finds it.
    return db.transaction(async (tx) => {
      const [fresh] = await tx
        .insert(providerCallbacks)
        .values({ provider, callbackKey: key })
        .onConflictDoNothing()
        .returning({ key: providerCallbacks.callbackKey });
      return fresh ? land(tx) : { received: true as const, applied: 0 };
    });
  }
  const [row] = await db
    .select({ id: messages.id })
    .from(messages)
    .where(eq(messages.providerMessageId, event.providerMessageId));
  if (!row) {
    log.warn("provider event for an unknown message", { provider, providerMessageId: event.providerMessageId });
    return { received: true, applied: 0 };
  }
  await applyOutcomes(db, row.id, event.outcomes);
  return { received: true, applied: event.outcomes.length };
}

/**
 * An interaction that is no message (a button's tap) as a ledger event in the inbox connected at
 * the address it arrived at, naming the message it concerns when that is one of the inbox's;
 * false when no active inbox receives there.
 */
async function landInteraction(db: DbOrTx, i: InboundInteraction): Promise<boolean> {
  const inbox = await receivingInbox(db, i.channel, i.deliveredTo);
  if (!inbox) return false;
  const [target] = i.providerMessageId
    ? await db
        .select({ id: messages.id, threadId: messages.threadId })
        .from(messages)
        .where(and(eq(messages.inboxId, inbox.id), eq(messages.providerMessageId, i.providerMessageId)))
    : [];
  await db.transaction((tx) =>
    appendEvents(tx, [
      {
        orgId: inbox.orgId,
        type: i.type,
        partitionKey: `inbox:${inbox.id}`,
        inboxId: inbox.id,
        threadId: target?.threadId ?? null,
        messageId: target?.id ?? null,
        outboundMessageId: target?.id ?? null,
        providerMessageId: i.providerMessageId,
        data: {
          inboxId: inbox.id,
          messageId: target?.id ?? null,
          threadId: target?.threadId ?? null,
          channel: i.channel,
          direction: "inbound",
          from: i.from,
          ...i.data,
        },
      },
    ]),
  );
  return true;
}

/** How long a provider callback's key is remembered: longer than any provider retries one (Telegram: 24 h; Twilio: minutes). */
export const CALLBACK_KEY_DAYS = 7;

/** Drops callback keys older than `CALLBACK_KEY_DAYS` (housekeeping); the number removed. */
export async function purgeOldProviderCallbacks(db: DbOrTx, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - CALLBACK_KEY_DAYS * 86_400_000);
  const gone = await db
    .delete(providerCallbacks)
    .where(lt(providerCallbacks.createdAt, cutoff))
    .returning({ key: providerCallbacks.callbackKey });
  return gone.length;
}
