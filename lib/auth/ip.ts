import ipaddr from "ipaddr.js";

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Parsed, number];

/** Parses an address, mapping IPv4-mapped IPv6 (`::ffff:1.2.3.4`) to IPv4. */
export function parseIp(value: string): Parsed | null {
  try {
    return ipaddr.process(value.trim());
  } catch {
    return null;
  }
}

/** Parses an allowlist entry: a single address or a CIDR range. */
export function parseIpEntry(entry: string): Range | null {
  const value = entry.trim();
  try {
    if (value.includes("/")) {
      const [addr, bits] = ipaddr.parseCIDR(value);
      if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
        return [(addr as ipaddr.IPv6).toIPv4Address(), Math.max(0, bits - 96)];
      }
      return [addr, bits];
    }
  } catch {
    return null;
  }
  const addr = parseIp(value);
  return addr ? [addr, addr.kind() === "ipv4" ? 32 : 128] : null;
}

export function isValidIpEntry(entry: string): boolean {
  return parseIpEntry(entry) !== null;
}

/** Deny by default: true only when `ip` is inside one of `entries`. */
export function ipAllowed(ip: string | null, entries: readonly string[]): boolean {
  if (!ip) return false;
  const addr = parseIp(ip);
  if (!addr) return false;
  for (const entry of entries) {
    const range = parseIpEntry(entry);
    if (range && range[0].kind() === addr.kind() && addr.match(range)) return true;
  }
  return false;
}

/** True when every address of `entry` (an address or CIDR range) is inside one of `entries`. */
export function entryWithin(entry: string, entries: readonly string[]): boolean {
  const inner = parseIpEntry(entry);
  if (!inner) return false;
  for (const e of entries) {
    const outer = parseIpEntry(e);
    if (outer && outer[0].kind() === inner[0].kind() && inner[1] >= outer[1] && inner[0].match(outer)) return true;
  }
  return false;
}
