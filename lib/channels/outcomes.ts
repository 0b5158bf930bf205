/**
 * Delivery outcomes, the neutral vocabulary of the channel port (`port.ts`): pure data, so the
 * database schema and the console can import it.
 */

/** What became of a message for one recipient: the neutral vocabulary every channel maps its provider's into. */
export const OUTCOME_KINDS = ["accepted", "delivered", "delayed", "bounced", "complained", "failed"] as const;
export type OutcomeKind = (typeof OUTCOME_KINDS)[number];

export interface DeliveryOutcome {
  kind: OutcomeKind;
  recipient: string;
  at: Date;
  /**
   * The provider's own name for the event (SES: `Delivery`, `Bounce`, `Complaint`, `DeliveryDelay`):
   * kept as the outbound event's `type` and the ledger event's `eventType`.
   */
  providerType: string;
  /** The provider's details (bounce type, diagnostic code, complaint feedback type, …). */
  detail: Record<string, string>;
}

/**
 * A message's one outcome after `outcomes` on top of `current`: a complaint, a bounce or a failure
 * stays (most final first), otherwise the latest delivery or delay; `accepted` until anything else.
 */
export function foldOutcome(current: OutcomeKind | null, outcomes: readonly DeliveryOutcome[]): OutcomeKind | null {
  const rank = (k: OutcomeKind | null) =>
    k === "complained" ? 4 : k === "bounced" ? 3 : k === "failed" ? 2 : k === "accepted" ? 0 : k === null ? -1 : 1;
  let out = current;
  for (const { kind } of outcomes) {
    const r = rank(kind);
    // Final outcomes keep the most final; a delivery or delay replaces only the one before it.
    if (r >= 2 ? r >= rank(out) : r === 1 ? rank(out) <= 1 : rank(out) < 0) out = kind;
  }
  return out;
}
