import ipaddr from "ipaddr.js";

/**
 * Which addresses outbound requests (webhooks, JWKS, provider callbacks) may connect to. An
 * allowlist, not a blocklist: IPv4 must be ordinary unicast (no private, loopback, link-local —
 * which holds 169.254.169.254 —, CGNAT, reserved, multicast…) and not a known cloud metadata or
 * host address; IPv6 must be global unicast (2000::/3) and not a special range. IPv6 forms that
 * carry an IPv4 address are judged by that address (IPv4-mapped `::ffff:a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`), or refused when nothing legitimate uses them
 * (IPv4-compatible `::a.b.c.d`, local-use NAT64 `64:ff9b:1::/48`, Teredo). Loopback only when the
 * caller allows it (development: WEBHOOK_ALLOW_LOOPBACK_HTTP).
 */
export interface AddressPolicy {
  allowLoopback: boolean;
}

/** Cloud metadata and host addresses that are ordinary unicast by range. */
const METADATA_V4: Record<string, string> = {
  "168.63.129.16": "the Azure host address (WireServer)",
  "169.254.169.254": "a cloud metadata address",
  "169.254.170.2": "the AWS container metadata address",
  "100.100.100.200": "the Alibaba Cloud metadata address",
  "192.0.0.192": "the Oracle Cloud metadata address",
};
const METADATA_V6 = new Set(["fd00:ec2::254"]);

function v4Problem(ip: ipaddr.IPv4, policy: AddressPolicy, shown: string): string | null {
  const text = ip.toString();
  const metadata = METADATA_V4[text];
  if (metadata) return `${shown} is ${metadata}`;
  const range = ip.range();
  if (range === "unicast") return null;
  if (range === "loopback" && policy.allowLoopback) return null;
  return `${shown} is a ${range} address`;
}

const inCidr = (ip: ipaddr.IPv6, cidr: string) => ip.match(ipaddr.IPv6.parseCIDR(cidr));
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");

/** The IPv4 address in the low 32 bits of an IPv6 address. */
const low32 = (ip: ipaddr.IPv6) => new ipaddr.IPv4(ip.toByteArray().slice(12, 16));

/**
 * `::127.0.0.1` → `::7f00:1`. ipaddr.js reads any IPv6 address with a dotted IPv4 tail as
 * IPv4-mapped (`::127.0.0.1` would become `::ffff:127.0.0.1`), so the tail is rewritten first.
 */
function dottedTailToHex(literal: string): string {
  const m = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(literal);
  if (!m) return literal;
  const [a, b, c, d] = m.slice(2).map(Number) as [number, number, number, number];
  if ([a, b, c, d].some((n) => n > 255)) throw new Error("invalid IPv4 tail");
  return `${m[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** Null when a connection to `address` is allowed, else why not. */
export function addressProblem(address: string, policy: AddressPolicy): string | null {
  const literal = address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""); // brackets, IPv6 zone id
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(literal.includes(":") ? dottedTailToHex(literal) : literal);
  } catch {
    return `${address} is not an IP address`;
  }
  if (ip.kind() === "ipv4") return v4Problem(ip as ipaddr.IPv4, policy, address);
  const v6 = ip as ipaddr.IPv6;
  if (METADATA_V6.has(v6.toString())) return `${address} is a cloud metadata address`;
  if (v6.toString() === "::1") return policy.allowLoopback ? null : `${address} is a loopback address`;
  if (inCidr(v6, "::ffff:0:0/96"))
    return v4Problem(low32(v6), policy, `${address} (IPv4-mapped ${low32(v6).toString()})`);
  if (inCidr(v6, "::/96")) return `${address} is an IPv4-compatible IPv6 address (deprecated)`;
  if (inCidr(v6, "64:ff9b::/96"))
    return v4Problem(low32(v6), { allowLoopback: false }, `${address} (NAT64 of ${low32(v6).toString()})`);
  if (inCidr(v6, "2002::/16")) {
    const embedded = new ipaddr.IPv4(v6.toByteArray().slice(2, 6));
    return v4Problem(embedded, { allowLoopback: false }, `${address} (6to4 of ${embedded.toString()})`);
  }
  if (!v6.match(GLOBAL_UNICAST)) return `${address} is not a global unicast IPv6 address`;
  const range = v6.range();
  return range === "unicast" ? null : `${address} is a ${range} address`;
}
