import { z } from "zod";

const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const DOMAIN = new RegExp(`^(?:${LABEL}\\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$`);
const LOCAL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/;
const E164 = /^\+[1-9]\d{6,14}$/;
const HANDLE = /^@[a-z0-9_]{1,64}$/;

/**
 * A wait's `fromHint` in normal form: a full address (matched exactly), a domain (itself and its
 * subdomains), or a channel handle (an E.164 number, an `@handle`); null when it is none of these.
 */
export function normalizeHint(raw: string): { kind: "address" | "domain" | "handle"; value: string } | null {
  const v = raw.trim().toLowerCase();
  if (v.length === 0 || v.length > 255) return null;
  if (E164.test(v) || HANDLE.test(v)) return { kind: "handle", value: v };
  const at = v.lastIndexOf("@");
  if (at > 0) {
    const local = v.slice(0, at);
    const domain = v.slice(at + 1);
    return LOCAL.test(local) && DOMAIN.test(domain) ? { kind: "address", value: v } : null;
  }
  return DOMAIN.test(v) ? { kind: "domain", value: v } : null;
}

export const fromHintSchema = z
  .string()
  .max(255)
  .refine((v) => normalizeHint(v) !== null, {
    message:
      "fromHint must be a full address (name@example.com), a domain (example.com) or a handle (+14155550100, @name)",
  })
  .describe(
    "An exact sender address, or a domain matching itself and its subdomains (never a substring), or an E.164 number / @handle for SMS, Telegram and Slack.",
  );

/** Whether a sender address matches the hint: exactly, or as the hinted domain or one of its subdomains. */
export function hintMatches(hint: string, from: string): boolean {
  const h = normalizeHint(hint);
  if (!h) return false;
  const f = from.trim().toLowerCase();
  if (h.kind !== "domain") return f === h.value;
  const at = f.lastIndexOf("@");
  if (at < 0) return false;
  const domain = f.slice(at + 1);
  return domain === h.value || domain.endsWith(`.${h.value}`);
}
