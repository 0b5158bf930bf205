import type { Readable } from "node:stream";

/**
 * A malware scanner. `scan` answers clean or infected, or throws ScanError when it could not
 * decide (scanner down, time-out, size limit): the caller retries and finally marks the object
 * `failed`, never `clean`.
 */
export interface Scanner {
  readonly kind: "clamd" | "builtin";
  scan(body: Uint8Array | Readable): Promise<ScanVerdict>;
  /** What runs, for whoami and the console (`ClamAV 1.4.6/27000/…`, or the built-in scanner's rules). */
  describe(): Promise<ScannerInfo>;
}

export type ScanVerdict =
  | { status: "clean"; engine: string }
  | { status: "infected"; signature: string; engine: string };

export interface ScannerInfo {
  kind: "clamd" | "builtin";
  /** The engine and signature versions, or null when the scanner cannot be reached now. */
  version: string | null;
  /** Where it listens (clamd), or how many block-list entries it has (built-in). */
  detail: string;
}

export class ScanError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ScanError";
  }
}

/** The EICAR anti-malware test file: every scanner must flag it. */
export const EICAR = "X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*";
