/**
 * The one delivery status of a message, derived from what the service knows about it: the
 * message's own lifecycle (`status`) and its neutral delivery outcome (`outcome`, which the send and
 * `applyOutcomes` write from the channel's outcomes: lib/channels/outcomes.ts). No channel's
 * metadata is read here.
 *
 * It is a stored generated column (`messages.delivery_status`, from `DELIVERY_STATUS_SQL`), so it
 * can never disagree with the row it is computed from, needs no code on the send path, and is
 * indexed for the list filter (`messages_org_delivery_status_idx`). Client-safe: plain constants.
 *
 * Outbound, most final first (the outcome's fold): `complained` > `bounced` > `failed` > `delayed`
 * or `delivered` (the latest of them; a message that left nothing for a provider — every recipient
 * an inbox of this service — is delivered at once) > `sent` (accepted, no outcome yet). Before
 * that: `queued`, `scheduled`, `failed`, `canceled` are the lifecycle itself. Inbound messages are
 * `received`.
 */
export const DELIVERY_STATUSES = [
  "queued",
  "scheduled",
  "sent",
  "delivered",
  "delayed",
  "bounced",
  "complained",
  "failed",
  "canceled",
  "received",
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The statuses an outbound message can have (every one but `received`), for pickers and counts. */
export const OUTBOUND_DELIVERY_STATUSES = DELIVERY_STATUSES.filter(
  (s): s is Exclude<DeliveryStatus, "received"> => s !== "received",
);

/** The generated column's expression (snake_case columns of `messages`; immutable, as PostgreSQL requires). */
export const DELIVERY_STATUS_SQL = `case
  when direction = 'inbound' then 'received'
  when status <> 'sent' then status
  when outcome is null or outcome = 'accepted' then 'sent'
  else outcome end`;

/** What each status means, for the console's legends and the OpenAPI description. */
export const DELIVERY_STATUS_LABELS: Record<DeliveryStatus, string> = {
  queued: "Queued",
  scheduled: "Scheduled",
  sent: "Sent, no outcome yet",
  delivered: "Delivered",
  delayed: "Delayed",
  bounced: "Bounced",
  complained: "Complained",
  failed: "Failed",
  canceled: "Canceled",
  received: "Received",
};

export const DELIVERY_STATUS_DESCRIPTION =
  "The message's one delivery status, derived from its lifecycle and provider outcomes. Outbound: `queued`, `scheduled`, `sent` (accepted, no outcome yet), `delivered` (a2a and inbox-to-inbox messages are delivered at once), `delayed`, `bounced`, `complained`, `failed`, `canceled`; inbound: `received`.";
