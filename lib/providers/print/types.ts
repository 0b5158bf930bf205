/**
 * The print provider port: who prints, envelopes and posts a verified letter. The embedded default
 * is the simulated print centre (`simulated.ts`: test mode, nothing printed, a clock moves the
 * letter); a live provider (e.g. Lob) prints for real and reports statuses by webhook.
 */

export type PrintMode = "test" | "live";

/** The statuses a print provider moves a letter through after it was accepted. */
export type PrintStatus = "processing" | "printable" | "submitted" | "in_transit" | "delivered" | "undeliverable";

export interface PrintSubmission {
  letterId: string;
  orgId: string;
  /** Storage key of the verified PDF. */
  pdfKey: string;
  pageCount: number;
  color: boolean;
  sides: "simplex" | "duplex";
  delivery: "standard" | "registered";
  to: Record<string, string | null>;
  from: Record<string, string | null> | null;
}

/**
 * Thrown by `submit` when the provider refuses the letter for good (e.g. Lob's 422 for an address
 * it cannot mail): the letter fails with this reason instead of being handed over again. Any
 * other error (5xx, 429, a network failure) is transient and the hand-over is retried.
 */
export class PrintRefused extends Error {
  constructor(
    message: string,
    /** The provider's HTTP status, when it answered one. */
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = "PrintRefused";
  }
}

export interface PrintProvider {
  readonly name: string;
  readonly mode: PrintMode;
  /**
   * Hands a letter over; answers the provider's id for it. Must be safe to call again for the same
   * letter. Throws `PrintRefused` when the provider will never take it.
   */
  submit(letter: PrintSubmission): Promise<{ providerLetterId: string }>;
  /** Cancels a letter the provider has not started printing. */
  cancel(providerLetterId: string): Promise<void>;
}
