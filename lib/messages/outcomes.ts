import { eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { messages, outboundEvents, suppressions } from "@/db/schema";
import type { ProviderOutcome } from "@/lib/providers/mail";
import { appendEvents } from "@/lib/events/ledger";
import { appendMessageEvent, messageEvent, type MessageRow } from "./store";

const EVENT_FOR = {
  Delivery: "message.delivered",
  Bounce: "message.bounced",
  Complaint: "message.complained",
  DeliveryDelay: "message.delayed",
} as const;

/** The message's `channelMetadata` after `outcomes` (`lastEventType`, `lastEventAt`, `bouncedAt`, `complainedAt`). */
export function outcomeMetadata(
  current: Record<string, unknown> | null,
  outcomes: readonly ProviderOutcome[],
): Record<string, unknown> {
  let metadata: Record<string, unknown> = { ...(current ?? {}) };
  for (const o of outcomes) {
    const at = o.occurredAt.toISOString();
    metadata = {
      ...metadata,
      lastEventType: o.type,
      lastEventAt: at,
      ...(o.type === "Bounce" ? { bouncedAt: at } : {}),
      ...(o.type === "Complaint" ? { complainedAt: at } : {}),
    };
  }
  return metadata;
}

/**
 * Applies provider delivery outcomes to an outbound message in the caller's transaction, on `row`
 * as it stands there (the caller holds its lock or has just written it): the outbound event rows,
 * the message's `channelMetadata` (`lastEventType`, `bouncedAt`, `complainedAt`), a ledger event
 * per outcome, and for a complaint a suppression of the recipient (a bounce creates none).
 * `sent` appends the message's `message.sent` first. Ledger events come last: appending one locks
 * the inbox's ledger partition until the commit, and every send of the inbox waits on that lock.
 * `metadataApplied`: the caller has already written `outcomeMetadata` on the row (the handoff
 * does, in the update that marks it `sent`). Returns the row as updated.
 */
export async function applyOutcomesInTx(
  tx: DbOrTx,
  row: MessageRow,
  outcomes: ProviderOutcome[],
  opts: { sent?: { attachmentCount: number }; metadataApplied?: boolean } = {},
): Promise<MessageRow> {
  if (outcomes.length === 0) {
    if (opts.sent) await appendMessageEvent(tx, row, "message.sent", opts.sent.attachmentCount);
    return row;
  }
  const detailsOf = (o: ProviderOutcome): Record<string, unknown> => ({
    ...(o.bounceType ? { bounceType: o.bounceType } : {}),
    ...(o.bounceSubType ? { bounceSubType: o.bounceSubType } : {}),
    ...(o.diagnosticCode ? { diagnosticCode: o.diagnosticCode } : {}),
    ...(o.complaintFeedbackType ? { complaintFeedbackType: o.complaintFeedbackType } : {}),
    ...(o.complaintUserAgent ? { complaintUserAgent: o.complaintUserAgent } : {}),
  });
  await tx.insert(outboundEvents).values(
    outcomes.map((o) => ({
      orgId: row.orgId,
      messageId: row.id,
      type: o.type,
      recipient: o.recipient,
      providerMessageId: row.providerMessageId,
      occurredAt: o.occurredAt,
      details: detailsOf(o),
    })),
  );
  const [updated] = opts.metadataApplied
    ? [row]
    : await tx
        .update(messages)
        .set({ channelMetadata: outcomeMetadata(row.channelMetadata, outcomes) })
        .where(eq(messages.id, row.id))
        .returning();
  for (const o of outcomes) {
    if (o.type !== "Complaint") continue;
    await tx
      .insert(suppressions)
      .values({
        orgId: row.orgId,
        address: o.recipient.toLowerCase(),
        reason: "complaint",
        sourceMessageId: row.id,
        providerMessageId: row.providerMessageId,
        feedbackType: o.complaintFeedbackType ?? null,
        userAgent: o.complaintUserAgent ?? null,
        lastEventAt: o.occurredAt,
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
  await appendEvents(tx, [
    ...(opts.sent ? [messageEvent(final, "message.sent", opts.sent.attachmentCount)] : []),
    ...outcomes.map((o) =>
      messageEvent(final, EVENT_FOR[o.type], undefined, { recipient: o.recipient, eventType: o.type, ...detailsOf(o) }),
    ),
  ]);
  return final;
}

/** Provider outcomes reported later (SES notifications): one transaction holding the message's row lock. */
export async function applyOutcomes(db: Db, messageId: string, outcomes: ProviderOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await db.transaction(async (tx) => {
    const [row] = await tx.select().from(messages).where(eq(messages.id, messageId)).for("update");
    if (row) await applyOutcomesInTx(tx, row, outcomes);
  });
}
