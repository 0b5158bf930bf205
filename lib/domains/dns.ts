import { Resolver } from "node:dns/promises";
import { env } from "@/lib/env";

/** A resolver on the configured DNS servers (DNS_SERVERS), or the system's. */
export function resolver(): Resolver {
  const r = new Resolver({ timeout: 3000, tries: 2 });
  if (env.DNS_SERVERS.length > 0) r.setServers(env.DNS_SERVERS);
  return r;
}

/** TXT records of a name, each with its strings joined; empty when the name has none. */
export async function txtRecords(name: string, r: Resolver = resolver()): Promise<string[]> {
  try {
    return (await r.resolveTxt(name)).map((chunks) => chunks.join(""));
  } catch {
    return [];
  }
}

export async function mxHosts(name: string, r: Resolver = resolver()): Promise<string[]> {
  try {
    return (await r.resolveMx(name)).map((mx) => mx.exchange.toLowerCase().replace(/\.$/, ""));
  } catch {
    return [];
  }
}

/**
 * The resolver shape mailauth expects (`resolver(name, rrtype)`), on the same servers, so SPF,
 * DKIM and DMARC checks of inbound mail see the same DNS as domain verification.
 */
export function mailauthResolver(): (name: string, rrtype: string) => Promise<unknown> {
  const r = resolver();
  return async (name, rrtype) => {
    switch (rrtype) {
      case "TXT":
        return r.resolveTxt(name);
      case "MX":
        return r.resolveMx(name);
      case "A":
        return r.resolve4(name);
      case "AAAA":
        return r.resolve6(name);
      case "CNAME":
        return r.resolveCname(name);
      case "NS":
        return r.resolveNs(name);
      case "PTR":
        return r.resolvePtr(name);
      default:
        return r.resolve(name, rrtype);
    }
  };
}
