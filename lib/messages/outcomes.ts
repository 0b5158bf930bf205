import { eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { messages, outboundEvents, suppressions } from "@/db/schema";
import type { ProviderOutcome } from "@/lib/providers/mail";
import { appendMessageEvent } from "./store";

const EVENT_FOR = {
  Delivery: "message.delivered",
  Bounce: "message.bounced",
  Complaint: "message.complained",
  DeliveryDelay: "message.delayed",
} as const;

/**
 * Applies provider delivery outcomes to an outbound message, each in its own transaction: the
 * outbound event row, the message's `channelMetadata` (`lastEventType`, `bouncedAt`,
 * `complainedAt`), the ledger event, and for a complaint a suppression of the recipient (a bounce
 * creates none).
 */
export async function applyOutcomes(db: Db, messageId: string, outcomes: ProviderOutcome[]): Promise<void> {
  for (const o of outcomes) {
    await db.transaction(async (tx) => {
      const [row] = await tx.select().from(messages).where(eq(messages.id, messageId)).for("update");
      if (!row) return;
      const details: Record<string, unknown> = {
        ...(o.bounceType ? { bounceType: o.bounceType } : {}),
        ...(o.bounceSubType ? { bounceSubType: o.bounceSubType } : {}),
        ...(o.diagnosticCode ? { diagnosticCode: o.diagnosticCode } : {}),
        ...(o.complaintFeedbackType ? { complaintFeedbackType: o.complaintFeedbackType } : {}),
        ...(o.complaintUserAgent ? { complaintUserAgent: o.complaintUserAgent } : {}),
      };
      await tx.insert(outboundEvents).values({
        orgId: row.orgId,
        messageId: row.id,
        type: o.type,
        recipient: o.recipient,
        providerMessageId: row.providerMessageId,
        occurredAt: o.occurredAt,
        details,
      });
      const at = o.occurredAt.toISOString();
      const metadata = {
        ...(row.channelMetadata ?? {}),
        lastEventType: o.type,
        lastEventAt: at,
        ...(o.type === "Bounce" ? { bouncedAt: at } : {}),
        ...(o.type === "Complaint" ? { complainedAt: at } : {}),
      };
      const [updated] = await tx.update(messages).set({ channelMetadata: metadata }).where(eq(messages.id, row.id)).returning();
      if (o.type === "Complaint") {
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
            set: { sourceMessageId: row.id, lastEventAt: sql`excluded.last_event_at`, feedbackType: sql`excluded.feedback_type` },
          });
      }
      await appendMessageEvent(tx, updated ?? row, EVENT_FOR[o.type], undefined, { recipient: o.recipient, eventType: o.type, ...details });
    });
  }
}
