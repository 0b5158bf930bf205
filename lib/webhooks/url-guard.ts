import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { env } from "@/lib/env";

/**
 * SSRF guard for webhook URLs: HTTPS only, and the host must resolve to public addresses only
 * (no private, loopback, link-local — which covers cloud metadata at 169.254.169.254 — unique-local,
 * CGNAT, multicast or reserved ranges). WEBHOOK_ALLOW_LOOPBACK_HTTP (development) also allows
 * http:// and https:// to loopback. Checked when a URL is saved and again before each delivery.
 */
const BLOCKED = new Set(["unspecified", "broadcast", "multicast", "linkLocal", "loopback", "carrierGradeNat", "private", "reserved", "uniqueLocal", "ipv4Mapped", "rfc6145", "rfc6052", "6to4", "teredo", "benchmarking", "amt", "as112", "deprecated", "orchid2", "droneRemoteIdProtocolEntityTags"]);

function isLoopback(address: string): boolean {
  try {
    return ipaddr.process(address).range() === "loopback";
  } catch {
    return false;
  }
}

function isBlocked(address: string): boolean {
  try {
    return BLOCKED.has(ipaddr.process(address).range());
  } catch {
    return true;
  }
}

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
    addresses = ipaddr.isValid(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `host ${host} does not resolve`;
  }
  if (addresses.length === 0) return `host ${host} does not resolve`;
  const allLoopback = addresses.every(isLoopback);
  if (allLoopback && env.WEBHOOK_ALLOW_LOOPBACK_HTTP) return null;
  if (url.protocol !== "https:") return "must be an https:// URL";
  if (addresses.some(isBlocked)) return `host ${host} resolves to a private or reserved address`;
  return null;
}
