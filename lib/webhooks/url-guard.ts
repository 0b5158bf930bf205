import { env } from "@/lib/env";
import { addressProblem, resolveHost } from "@/lib/providers/http";

/**
 * SSRF check of a webhook URL when it is saved and before each delivery, for a clear error: https
 * only, no credentials, and every address the host resolves to allowed by the outbound address
 * policy (`lib/providers/http/address-policy.ts`). WEBHOOK_ALLOW_LOOPBACK_HTTP (development) also
 * allows http:// and https:// to loopback. The delivery itself goes through the guarded client
 * (`outboundFetch`), which checks the address it actually connects to again (DNS rebinding).
 */
export const loopbackAllowed = (): boolean => env.WEBHOOK_ALLOW_LOOPBACK_HTTP;

/** Null when the URL may receive webhooks, else the reason it may not. */
export async function webhookUrlProblem(raw: string): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a URL";
  }
  if (url.username || url.password) return "must not carry credentials";
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an https:// URL";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = await resolveHost(host);
  } catch {
    return `host ${host} does not resolve`;
  }
  if (addresses.length === 0) return `host ${host} does not resolve`;
  const allLoopback = addresses.every((a) => addressProblem(a, { allowLoopback: false }) !== null && addressProblem(a, { allowLoopback: true }) === null);
  if (allLoopback && loopbackAllowed()) return null;
  if (url.protocol !== "https:") return "must be an https:// URL";
  for (const a of addresses) {
    const problem = addressProblem(a, { allowLoopback: false });
    if (problem) return `host ${host} resolves to a private or reserved address (${problem})`;
  }
  return null;
}
