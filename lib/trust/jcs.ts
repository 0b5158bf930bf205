import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/**
 * RFC 8785 JSON Canonicalization Scheme (the `canonicalize` package): object keys sorted by UTF-16
 * code units, no whitespace, ECMAScript number and string serialization. What every signature and
 * hash in the trust layer is computed over. Throws on values JSON cannot carry (undefined at the
 * top, NaN, Infinity, lone surrogates, cycles) rather than signing something ambiguous.
 */
export function jcs(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new TypeError("value has no JSON form");
  return out;
}

export const sha256Hex = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");

/**
 * A JSON value made safe to store in jsonb and to canonicalize: one JSON round trip (drops
 * undefined, turns dates into strings), NUL characters (jsonb refuses them) and lone surrogates
 * (JCS refuses them) replaced by U+FFFD. Hash what this returns, and store the same thing, so the
 * value read back from the database canonicalizes to the bytes that were hashed.
 */
export function jsonSafe<T>(value: T): T {
  if (value === undefined) return value;
  return clean(JSON.parse(JSON.stringify(value))) as T;
}

function clean(v: unknown): unknown {
  if (typeof v === "string") return cleanString(v);
  if (Array.isArray(v)) return v.map(clean);
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [cleanString(k), clean(x)]));
  return v;
}

/* eslint-disable no-control-regex -- the NUL escape is the point */
function cleanString(s: string): string {
  return s
    .replace(/\u0000/g, "\uFFFD")
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}
/* eslint-enable no-control-regex */
