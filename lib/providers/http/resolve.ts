import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { resolver } from "@/lib/domains/dns";
import { env } from "@/lib/env";

/**
 * Every address a host name has for outbound HTTP: an IP literal is itself; `localhost` and
 * `*.localhost` are loopback (RFC 6761, never asked of DNS); other names are asked of the
 * configured DNS servers (DNS_SERVERS, A and AAAA) or, without them, of the system resolver.
 */
export async function resolveHost(host: string): Promise<string[]> {
  const name = host
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (ipaddr.isValid(name)) return [name];
  if (name === "localhost" || name.endsWith(".localhost")) return ["127.0.0.1", "::1"];
  if (env.DNS_SERVERS.length === 0) return (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);
  const r = resolver();
  const [v4, v6] = await Promise.allSettled([r.resolve4(name), r.resolve6(name)]);
  const addresses = [...(v4.status === "fulfilled" ? v4.value : []), ...(v6.status === "fulfilled" ? v6.value : [])];
  if (addresses.length === 0) {
    const failed: unknown = v4.status === "rejected" ? v4.reason : v6.status === "rejected" ? v6.reason : null;
    throw failed instanceof Error ? failed : new Error(`${name} has no addresses`);
  }
  return addresses;
}
