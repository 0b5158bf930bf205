/**
 * What the request log keeps of a body: secrets and attachment bytes removed, then capped. Runs in
 * the recorder's flush, never on the request's path.
 *
 * - A property whose name says it holds a secret (password, secret, token, key material,
 *   authorization, signature, …) keeps only `"[redacted]"`.
 * - Any string that is an API key of this service (`svc_live_…`, `svc_test_…`) is redacted wherever it is.
 * - A long base64 string (attachment content, a PDF, audio) becomes `"[N bytes removed]"`.
 * - The JSON text is cut at `REQUEST_LOG_BODY_MAX` characters, with a marker saying how much was cut.
 */

export const REQUEST_LOG_BODY_MAX = 16_384;
export const REDACTED = "[redacted]";

const SECRET_NAME =
  /pass(word|phrase)?$|secret|token|api_?key|apikey|authorization|credential|private_?key|signature|cookie|^otp$|^pin$|client_?secret/i;
const API_KEY_VALUE = /svc_(live|test)_[A-Za-z0-9_-]+/g;
const BASE64_BLOB = /^[A-Za-z0-9+/_-]{256,}={0,2}$/;

function clean(value: unknown, depth: number): unknown {
  if (typeof value === "string") {
    if (value.length >= 256 && BASE64_BLOB.test(value)) return `[${Math.floor((value.length * 3) / 4)} bytes removed]`;
    return value.includes("svc_") ? value.replace(API_KEY_VALUE, REDACTED) : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth > 32) return "[nested too deep]";
  if (Array.isArray(value)) return value.map((v) => clean(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] =
      SECRET_NAME.test(k) && v !== null && v !== undefined && typeof v !== "boolean" ? REDACTED : clean(v, depth + 1);
  }
  return out;
}

/** The stored text of a JSON body (null when there was none). */
export function redactBody(value: unknown, max = REQUEST_LOG_BODY_MAX): string | null {
  if (value === undefined || value === null || value === "") return null;
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value) as unknown;
    } catch {
      // Not JSON (a malformed body the request was refused for): kept as text, API keys still
      // redacted, NUL (which no PostgreSQL text holds) as U+FFFD.
      return cap(value.replace(API_KEY_VALUE, REDACTED).replaceAll("\0", "\uFFFD"), max);
    }
  }
  return cap(JSON.stringify(clean(parsed, 0)), max);
}

/** The query string with secret-named parameters and API keys redacted; null when empty. */
export function redactQuery(search: string): string | null {
  const params = new URLSearchParams(search);
  if ([...params.keys()].length === 0) return null;
  const out = new URLSearchParams();
  for (const [k, v] of params) out.append(k, SECRET_NAME.test(k) ? REDACTED : v.replace(API_KEY_VALUE, REDACTED));
  return cap(out.toString(), 2048);
}

function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}…[${text.length - max} more characters not kept]`;
}
