import type { ProviderOutcome } from "@/lib/providers/mail";
import type { DeliveryOutcome, DeliveryReceipt } from "../port";

const KIND = {
  Delivery: "delivered",
  Bounce: "bounced",
  Complaint: "complained",
  DeliveryDelay: "delayed",
} as const;

/** A mail transport's outcome (SES's notification types) as the port's neutral outcome. */
export function fromProviderOutcome(o: ProviderOutcome): DeliveryOutcome {
  const detail: Record<string, string> = {
    ...(o.bounceType ? { bounceType: o.bounceType } : {}),
    ...(o.bounceSubType ? { bounceSubType: o.bounceSubType } : {}),
    ...(o.diagnosticCode ? { diagnosticCode: o.diagnosticCode } : {}),
    ...(o.complaintFeedbackType ? { complaintFeedbackType: o.complaintFeedbackType } : {}),
    ...(o.complaintUserAgent ? { complaintUserAgent: o.complaintUserAgent } : {}),
  };
  return { kind: KIND[o.type], recipient: o.recipient, at: o.occurredAt, providerType: o.type, detail };
}

/** A permanent bounce for an inbox of this service that does not receive, as a mail provider reports one. */
export const mailboxUnavailable = (recipient: string, inboxStatus: string): DeliveryOutcome => ({
  kind: "bounced",
  recipient,
  at: new Date(),
  providerType: "Bounce",
  detail: {
    bounceType: "Permanent",
    bounceSubType: "MailboxUnavailable",
    diagnosticCode: `smtp; 550 5.2.1 mailbox ${inboxStatus}`,
  },
});

/**
 * Mail-shaped `channelMetadata` after a handoff and outcomes (email's, and a2a's copies): the
 * transport (`provider`, `providerMessageId`) and the latest outcome (`lastEventType`,
 * `lastEventAt`, `bouncedAt`, `complainedAt`).
 */
export function mailOutcomeMetadata(
  current: Record<string, unknown> | null,
  update: { receipt?: DeliveryReceipt | null; outcomes: readonly DeliveryOutcome[] },
): Record<string, unknown> {
  let metadata: Record<string, unknown> = { ...(current ?? {}) };
  if (update.receipt !== undefined)
    metadata = {
      ...metadata,
      provider: update.receipt?.provider ?? null,
      providerMessageId: update.receipt?.providerMessageId ?? null,
    };
  for (const o of update.outcomes) {
    const at = o.at.toISOString();
    metadata = {
      ...metadata,
      lastEventType: o.providerType,
      lastEventAt: at,
      ...(o.kind === "bounced" ? { bouncedAt: at } : {}),
      ...(o.kind === "complained" ? { complainedAt: at } : {}),
    };
  }
  return metadata;
}
