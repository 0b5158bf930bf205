/**
 * A webhook endpoint's health in words, from its breaker and its run of failures: `open` when the
 * breaker paused it, `failing` while deliveries fail but the breaker has not opened yet (how many in
 * a row, how many more open it, the last error), `healthy` otherwise. The console's badge and
 * sentence come from here, so "Deliveries flow." is never said beside a run of failures.
 */
export type WebhookHealthState = "open" | "failing" | "healthy";

export interface WebhookHealthInput {
  autoPaused: boolean;
  consecutiveFailures: number;
}

export interface FailedDeliveryLike {
  status: string;
  error: string | null;
  responseStatus: number | null;
  createdAt: string;
}

export interface WebhookHealth {
  state: WebhookHealthState;
  /** The sentence beside the badge. */
  text: string;
  /** The newest failed attempt's error in words, with its time (null when there is none to show). */
  lastError: { text: string; at: string } | null;
}

/** A failed attempt's error in words: the error, else the endpoint's HTTP status. */
export function deliveryErrorText(d: FailedDeliveryLike): string {
  if (d.error) return d.error;
  if (d.responseStatus !== null) return `the endpoint answered HTTP ${d.responseStatus}`;
  return "no answer";
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `deliveries` newest first (the delivery log); `threshold` is the failures in a row that open the breaker. */
export function webhookHealth(
  w: WebhookHealthInput,
  threshold: number,
  deliveries: readonly FailedDeliveryLike[] = [],
): WebhookHealth {
  const failed = deliveries.find((d) => d.status === "failed");
  const lastError =
    failed && w.consecutiveFailures > 0 ? { text: deliveryErrorText(failed), at: failed.createdAt } : null;
  if (w.autoPaused)
    return {
      state: "open",
      text: "Paused after repeated delivery failures; resume to close it.",
      lastError,
    };
  if (w.consecutiveFailures > 0) {
    const left = Math.max(threshold - w.consecutiveFailures, 0);
    return {
      state: "failing",
      text: `${plural(w.consecutiveFailures, "delivery", "deliveries")} failed in a row; ${
        left > 0
          ? `the breaker pauses the endpoint after ${plural(left, "more failure")}`
          : "the breaker pauses the endpoint at the next failure"
      }. Deliveries are still attempted and retried.`,
      lastError,
    };
  }
  return { state: "healthy", text: "Deliveries flow: the last attempt did not fail.", lastError: null };
}
