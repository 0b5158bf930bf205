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

const SETTING = "WEBHOOK_ALLOW_LOOPBACK_HTTP";

/** Why plain http:// is refused, naming the development setting that allows it for loopback. */
const httpProblem = (allowLoopback: boolean): string =>
  allowLoopback
    ? `must use https:// (plain http:// is accepted only for a loopback address such as localhost, which ${SETTING} allows in development)`
    : `must use https:// (plain http:// is accepted only for a loopback address such as localhost, and only in development with ${SETTING}=true)`;

/**
 * Null when the URL may receive webhooks, else the reason it may not, phrased to follow "The URL".
 * `allowLoopback` defaults to the WEBHOOK_ALLOW_LOOPBACK_HTTP setting.
 */
export async function webhookUrlProblem(
  raw: string,
  allowLoopback: boolean = loopbackAllowed(),
): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a URL (it should look like https://example.com/hooks)";
  }
  if (url.username || url.password) return "must not carry credentials (user:password@)";
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return `must use https:// (not ${url.protocol.replace(/:$/, "")}:)`;
  // Plain http is for loopback in development only: without the setting no lookup can make it acceptable.
  if (url.protocol === "http:" && !allowLoopback) return httpProblem(false);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = await resolveHost(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0)
    return url.protocol === "http:" ? httpProblem(true) : `host ${host} does not resolve (no DNS record found)`;
  const loopbackOnly = (a: string) =>
    addressProblem(a, { allowLoopback: false }) !== null && addressProblem(a, { allowLoopback: true }) === null;
  const allLoopback = addresses.every(loopbackOnly);
  if (allLoopback && allowLoopback) return null;
  if (url.protocol !== "https:") return httpProblem(true);
  for (const a of addresses) {
    const problem = addressProblem(a, { allowLoopback: false });
    if (!problem) continue;
    if (loopbackOnly(a))
      return `host ${host} resolves to the loopback address ${a}; loopback endpoints are allowed only in development, with ${SETTING}=true`;
    return `host ${host} resolves to a private or reserved address (${problem})`;
  }
  return null;
}
