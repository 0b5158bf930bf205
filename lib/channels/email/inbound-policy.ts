/**
 * What inbound mail can never be accepted, and how a failure to accept it is answered. A message
 * that will fail the same way on every attempt (a NUL byte, too many MIME parts, data the database
 * refuses) gets a permanent refusal (5xx), so the sending server bounces it at once instead of
 * retrying for days; only failures that may pass later (the database unreachable, a timeout) are
 * temporary (451).
 */

/** A message this service will never accept, with the SMTP reply that says so. */
export class InboundRejection extends Error {
  constructor(
    readonly responseCode: 550 | 552 | 554,
    readonly enhancedCode: string,
    message: string,
  ) {
    super(message);
    this.name = "InboundRejection";
  }
}

export interface InboundLimits {
  /** Most MIME parts (every body part, attachments included) one message may have. */
  maxMimeParts: number;
}

/** Delimiter lines (`--boundary`, not the closing `--boundary--`) of every boundary the message declares. */
export function countMimeParts(raw: Buffer): number {
  const text = raw.toString("latin1");
  const boundaries = new Set<string>();
  for (const m of text.matchAll(/boundary\s*=\s*(?:"([^"\r\n]{1,200})"|([^\s;"]{1,200}))/gi))
    boundaries.add(m[1] ?? m[2] ?? "");
  boundaries.delete("");
  if (boundaries.size === 0) return 1;
  let parts = 0;
  for (const m of text.matchAll(/^--([^\r\n]*?)[ \t]*\r?$/gm)) if (boundaries.has(m[1] ?? "")) parts++;
  return Math.max(parts, 1);
}

/** Throws an `InboundRejection` for raw mail that can never be accepted. */
export function checkRawMessage(raw: Buffer, limits: InboundLimits): void {
  // RFC 5321/5322: NUL is not allowed anywhere in a message (we advertise neither BINARYMIME nor CHUNKING).
  if (raw.includes(0))
    throw new InboundRejection(554, "5.6.0", "message contains a NUL byte, which RFC 5322 does not allow");
  const parts = countMimeParts(raw);
  if (parts > limits.maxMimeParts) {
    throw new InboundRejection(
      552,
      "5.3.4",
      `message has ${parts} MIME parts; at most ${limits.maxMimeParts} are accepted`,
    );
  }
}

/** Decoded text (a quoted-printable `=00`, an encoded-word) may still carry NULs: they are dropped. */
export const withoutNul = <T extends string | null | undefined>(value: T): T =>
  typeof value === "string" ? (value.replaceAll("\u0000", "") as T) : value;

/**
 * The SMTP reply for a failure to accept a message: the rejection's own for an `InboundRejection`,
 * a permanent 554 for data the database refuses (SQLSTATE class 22, "data exception": the same
 * message fails the same way again), else a temporary 451.
 */
export function inboundFailureReply(err: unknown): { code: number; message: string; permanent: boolean } {
  if (err instanceof InboundRejection)
    return { code: err.responseCode, message: `${err.enhancedCode} ${err.message}`, permanent: true };
  const sqlState = sqlStateOf(err);
  if (sqlState?.startsWith("22"))
    return { code: 554, message: "5.6.0 message content cannot be stored", permanent: true };
  return { code: 451, message: "4.3.0 temporary failure, try again later", permanent: false };
}

function sqlStateOf(err: unknown): string | null {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === "object" && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}
