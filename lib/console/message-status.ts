import { DELIVERY_STATUS_LABELS, type DeliveryStatus } from "@/lib/messages/delivery-status";

/**
 * A message's status and timeline as every console view shows them (the messages list, the
 * message page and the conversation view), derived here only: the status is the message's one
 * `deliveryStatus` (lib/messages/delivery-status.ts, from its lifecycle and folded outcome), the
 * time is when it was received (inbound) or sent (outbound), and the timeline puts the lifecycle
 * and the provider's events in one list that never contradicts the status. Pure and client-safe.
 */

export type StatusTone = "gray" | "green" | "red" | "yellow" | "blue";

export const DELIVERY_TONES: Record<DeliveryStatus, StatusTone> = {
  delivered: "green",
  received: "blue",
  sent: "blue",
  queued: "yellow",
  scheduled: "yellow",
  delayed: "yellow",
  bounced: "red",
  complained: "red",
  failed: "red",
  canceled: "gray",
};

/** What the views need of a message (a subset of the API's Message). */
export interface MessageFacts {
  direction: "inbound" | "outbound";
  /** The lifecycle (`queued`, `scheduled`, `sent`, `failed`, `canceled`, `received`). */
  status: string;
  deliveryStatus: DeliveryStatus;
  createdAt: string;
  receivedAt: string;
  sentAt: string | null;
  scheduledAt: string | null;
  error?: string | null;
}

/** A provider's delivery event of the message (the API's outbound event). */
export interface EventFacts {
  eventId: string;
  type: string;
  recipient?: string | null;
  occurredAt?: string;
  bounceType?: string;
  bounceSubType?: string;
  diagnosticCode?: string;
  complaintFeedbackType?: string;
  complaintUserAgent?: string;
}

/** The time a person looks for: received (inbound), sent, scheduled for, or created while it waits. */
export interface MessageMoment {
  label: "Received" | "Sent" | "Scheduled for" | "Created";
  at: string;
}

export function messageMoment(m: MessageFacts): MessageMoment {
  if (m.direction === "inbound") return { label: "Received", at: m.receivedAt };
  if (m.sentAt) return { label: "Sent", at: m.sentAt };
  if (m.deliveryStatus === "scheduled" && m.scheduledAt) return { label: "Scheduled for", at: m.scheduledAt };
  return { label: "Created", at: m.createdAt };
}

export interface TimelineStep {
  id: string;
  label: string;
  at: string | null;
  tone: StatusTone;
  /** The status this step reports, when it reports one (a provider's delivery, bounce, …). */
  reports?: DeliveryStatus;
  recipient?: string | null;
  detail?: string | null;
}

/** Provider event types (SES's names, which other channels reuse) as the status they report. */
const EVENT_STATUS: Record<string, DeliveryStatus> = {
  Delivery: "delivered",
  Bounce: "bounced",
  Complaint: "complained",
  DeliveryDelay: "delayed",
  Reject: "failed",
  RenderingFailure: "failed",
};

const EVENT_WORDS: Record<string, string> = {
  Delivery: "Delivered",
  Bounce: "Bounced",
  Complaint: "Complained",
  DeliveryDelay: "Delayed",
  Reject: "Rejected by the provider",
  RenderingFailure: "Rendering failed",
};

/** What a delivery event adds beyond its type, recipient and time (bounce and complaint details). */
export function eventDetail(e: EventFacts): string | null {
  const parts = [
    e.bounceType && `${e.bounceType} bounce${e.bounceSubType ? ` (${e.bounceSubType})` : ""}`,
    e.diagnosticCode,
    e.complaintFeedbackType && `feedback: ${e.complaintFeedbackType}`,
    e.complaintUserAgent,
  ];
  const text = parts.filter((p): p is string => Boolean(p)).join("; ");
  return text === "" ? null : text;
}

export interface MessageTimeline {
  status: DeliveryStatus;
  /** The status in words (the badge's title). */
  statusLabel: string;
  tone: StatusTone;
  moment: MessageMoment;
  /** Oldest first: created, scheduled, sent or failed, then each provider event. */
  steps: TimelineStep[];
  /** A sentence about what is still to come, only when something is (never beside a final outcome). */
  pending: string | null;
}

/** The message's status, its time and its one timeline (lifecycle and provider events, oldest first). */
export function messageTimeline(m: MessageFacts, events: readonly EventFacts[]): MessageTimeline {
  const status = m.deliveryStatus;
  const base = {
    status,
    statusLabel: DELIVERY_STATUS_LABELS[status],
    tone: DELIVERY_TONES[status],
    moment: messageMoment(m),
  };
  if (m.direction === "inbound") {
    return {
      ...base,
      steps: [{ id: "received", label: "Received", at: m.receivedAt, tone: "blue", reports: "received" }],
      pending: null,
    };
  }
  const steps: TimelineStep[] = [{ id: "created", label: "Created", at: m.createdAt, tone: "gray" }];
  if (m.scheduledAt)
    steps.push({
      id: "scheduled",
      label: "Scheduled for",
      at: m.scheduledAt,
      tone: "yellow",
      reports: m.status === "scheduled" ? "scheduled" : undefined,
    });
  if (m.status === "queued") steps.push({ id: "queued", label: "Queued", at: null, tone: "yellow", reports: "queued" });
  if (m.status === "canceled")
    steps.push({ id: "canceled", label: "Canceled", at: null, tone: "gray", reports: "canceled" });
  if (m.status === "failed")
    steps.push({
      id: "failed",
      label: "Failed before reaching a provider",
      at: m.sentAt,
      tone: "red",
      reports: "failed",
      detail: m.error ?? null,
    });
  if (m.status === "sent") steps.push({ id: "sent", label: "Sent", at: m.sentAt, tone: "blue", reports: "sent" });
  const sorted = events.toSorted((a, b) => (a.occurredAt ?? "").localeCompare(b.occurredAt ?? ""));
  for (const e of sorted) {
    const reports = EVENT_STATUS[e.type];
    steps.push({
      id: e.eventId,
      label: EVENT_WORDS[e.type] ?? e.type,
      at: e.occurredAt ?? null,
      tone: reports ? DELIVERY_TONES[reports] : "gray",
      reports,
      recipient: e.recipient ?? null,
      detail: eventDetail(e),
    });
  }
  // The outcome is on the message (folded when it was recorded) even when no event row says it
  // (recorded at hand-off, or the events are gone): the timeline still ends with it.
  if (!steps.some((s) => s.reports === status)) {
    steps.push({
      id: "outcome",
      label: DELIVERY_STATUS_LABELS[status],
      at: null,
      tone: DELIVERY_TONES[status],
      reports: status,
      detail: "Recorded on the message; no provider event is stored for it.",
    });
  }
  const pending =
    status === "sent"
      ? "Sent; the provider has not reported an outcome yet."
      : status === "queued"
        ? "Waiting to be handed to the provider."
        : status === "scheduled"
          ? "Waiting for its scheduled time."
          : status === "delayed"
            ? "The provider reported a delay; it keeps trying."
            : null;
  return { ...base, steps, pending };
}
