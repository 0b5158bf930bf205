import { createHmac } from "node:crypto";

/** JSON with object keys sorted (RFC 8785 canonical form for the values the executor sends). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/**
 * `X-Inngest-Signature` for a request body: `t=<unix seconds>&s=<hex HMAC-SHA256>` over the
 * canonical body followed by the timestamp, keyed with the part of the signing key after
 * `signkey-<env>-` (as the SDK verifies it).
 */
export function signBody(canonicalBody: string, signingKey: string, now: number = Date.now()): string {
  const key = signingKey.replace(/^signkey-[a-z0-9]+-/i, "");
  const t = Math.floor(now / 1000);
  const s = createHmac("sha256", key)
    .update(canonicalBody + String(t))
    .digest("hex");
  return `t=${t}&s=${s}`;
}
