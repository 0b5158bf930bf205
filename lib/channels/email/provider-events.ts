import { z } from "zod";
import { ApiError } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { outboundFetch } from "@/lib/providers/http";
import type { ProviderOutcome } from "@/lib/providers/mail";
import { isSnsUrl, type SnsMessage, snsMessageSchema, verifySnsMessage } from "@/lib/providers/ses/sns";
import type { DeliveryOutcome } from "../port";
import { fromProviderOutcome } from "./outcomes";

/** An SES event (configuration-set event publishing) or notification (identity notifications). */
const sesEventSchema = z.object({
  eventType: z.string().optional(),
  notificationType: z.string().optional(),
  mail: z.object({ messageId: z.string() }).passthrough(),
  delivery: z
    .object({ timestamp: z.string(), recipients: z.array(z.string()) })
    .passthrough()
    .optional(),
  bounce: z
    .object({
      bounceType: z.string(),
      bounceSubType: z.string().optional(),
      timestamp: z.string(),
      bouncedRecipients: z.array(
        z.object({ emailAddress: z.string(), diagnosticCode: z.string().optional() }).passthrough(),
      ),
    })
    .passthrough()
    .optional(),
  complaint: z
    .object({
      timestamp: z.string(),
      complaintFeedbackType: z.string().optional(),
      userAgent: z.string().optional(),
      complainedRecipients: z.array(z.object({ emailAddress: z.string() }).passthrough()),
    })
    .passthrough()
    .optional(),
  deliveryDelay: z
    .object({ timestamp: z.string(), delayedRecipients: z.array(z.object({ emailAddress: z.string() }).passthrough()) })
    .passthrough()
    .optional(),
});

/** SES's event into the provider-neutral outcomes the message pipeline applies. */
export function sesOutcomes(event: z.infer<typeof sesEventSchema>): ProviderOutcome[] {
  const type = event.eventType ?? event.notificationType;
  if (type === "Delivery" && event.delivery) {
    const at = new Date(event.delivery.timestamp);
    return event.delivery.recipients.map((recipient) => ({ type: "Delivery", recipient, occurredAt: at }));
  }
  if (type === "Bounce" && event.bounce) {
    const b = event.bounce;
    return b.bouncedRecipients.map((r) => ({
      type: "Bounce",
      recipient: r.emailAddress,
      occurredAt: new Date(b.timestamp),
      bounceType: b.bounceType === "Permanent" ? "Permanent" : "Transient",
      ...(b.bounceSubType ? { bounceSubType: b.bounceSubType } : {}),
      ...(r.diagnosticCode ? { diagnosticCode: r.diagnosticCode } : {}),
    }));
  }
  if (type === "Complaint" && event.complaint) {
    const c = event.complaint;
    return c.complainedRecipients.map((r) => ({
      type: "Complaint",
      recipient: r.emailAddress,
      occurredAt: new Date(c.timestamp),
      ...(c.complaintFeedbackType ? { complaintFeedbackType: c.complaintFeedbackType } : {}),
      ...(c.userAgent ? { complaintUserAgent: c.userAgent } : {}),
    }));
  }
  if (type === "DeliveryDelay" && event.deliveryDelay) {
    const d = event.deliveryDelay;
    return d.delayedRecipients.map((r) => ({
      type: "DeliveryDelay",
      recipient: r.emailAddress,
      occurredAt: new Date(d.timestamp),
    }));
  }
  return [];
}

/**
 * `POST /v1/providers/ses/events`: an SNS message whose signature must verify. Subscription
 * confirmations are confirmed (null: no outcome); notifications become the outcomes of the message
 * whose provider id they name (the pipeline applies them: `lib/messages/outcomes.ts`).
 */
export async function sesEvent(
  _provider: string,
  payload: unknown,
): Promise<{ providerMessageId: string; outcomes: DeliveryOutcome[] } | null> {
  const parsed = snsMessageSchema.safeParse(payload);
  if (!parsed.success) throw new ApiError("invalid_request", "Not an SNS message.", null);
  const m: SnsMessage = parsed.data;
  if (!(await verifySnsMessage(m)))
    throw new ApiError("not_permitted", "The SNS signature does not verify.", "Signature");
  if (env.SES_SNS_TOPIC_ARN && m.TopicArn !== env.SES_SNS_TOPIC_ARN)
    throw new ApiError("not_permitted", "Unexpected SNS topic.", "TopicArn");
  if (m.Type === "SubscriptionConfirmation") {
    if (m.SubscribeURL && isSnsUrl(m.SubscribeURL))
      await outboundFetch(m.SubscribeURL, { signal: AbortSignal.timeout(5000) });
    return null;
  }
  if (m.Type !== "Notification") return null;
  let event: z.infer<typeof sesEventSchema>;
  try {
    event = sesEventSchema.parse(JSON.parse(m.Message));
  } catch {
    throw new ApiError("invalid_request", "The notification is not an SES event.", "Message");
  }
  return { providerMessageId: event.mail.messageId, outcomes: sesOutcomes(event).map(fromProviderOutcome) };
}
