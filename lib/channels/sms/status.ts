import type { DeliveryOutcome, OutcomeKind } from "../port";

/** Twilio's message statuses in the order they happen (a late `sent` never replaces `delivered`). */
export const STATUS_RANK: Record<string, number> = {
  accepted: 0,
  queued: 1,
  sending: 2,
  sent: 3,
  delivered: 4,
  undelivered: 4,
  failed: 4,
};

const KIND_OF: Record<string, OutcomeKind> = {
  accepted: "accepted",
  queued: "accepted",
  sending: "accepted",
  sent: "accepted",
  delivered: "delivered",
  undelivered: "failed",
  failed: "failed",
};

/**
 * What a carrier error code means (Twilio's codes), for the message's `error`: what went wrong
 * and what to do, instead of a bare "undelivered".
 */
export const CARRIER_ERRORS: Record<number, string> = {
  30003: "Unreachable destination handset: the phone is off or out of coverage.",
  30004: "Message blocked: the recipient blocked messages from this number.",
  30005: "Unknown destination handset: the number does not exist or is no longer in service.",
  30006: "Landline or unreachable carrier: the number cannot receive SMS.",
  30007: "Carrier filtering: the carrier flagged the message as spam.",
  30008: "Unknown error from the carrier.",
  30034:
    "Message from an unregistered number: US carriers block A2P SMS from 10DLC numbers whose brand and campaign are not registered. Register them with the provider (A2P 10DLC), then send again.",
};

export const explainError = (code: number | null): string | null =>
  code === null ? null : (CARRIER_ERRORS[code] ?? `Carrier error ${code}.`);

/** One status of one message as a port outcome: the carrier's status as `providerType`, its error code in `detail`. */
export function statusOutcome(recipient: string, status: string, errorCode: number | null, at: Date): DeliveryOutcome {
  const kind = KIND_OF[status] ?? "accepted";
  const detail: Record<string, string> = { status };
  if (errorCode !== null) {
    detail.errorCode = String(errorCode);
    detail.error = explainError(errorCode) ?? "";
  }
  return { kind, recipient, at, providerType: status, detail };
}
