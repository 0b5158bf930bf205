import { createHash } from "node:crypto";
import ipaddr from "ipaddr.js";
import { lt, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { rateLimits } from "@/db/schema";

/**
 * Fixed-window rate limits kept in the database, so every server process (and every replica on one
 * PostgreSQL) shares one count; PGlite works the same in one process. One `hit` is one atomic
 * upsert: the first hit of a window inserts the row, later hits increment it, a hit after the
 * window's end starts a new one. Times come from the database's clock, not the processes'.
 */
export interface Rule {
  /** Hits allowed per window. */
  limit: number;
  windowSeconds: number;
}

export interface Verdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Hits counted in the window, this one included. */
  hits: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

const hashKey = (key: string) => createHash("sha256").update(key).digest("base64url");

/** Counts one hit against `key` under `rule`. */
export async function hit(db: DbOrTx, key: string, rule: Rule): Promise<Verdict> {
  const fresh = sql`now() + make_interval(secs => ${rule.windowSeconds})`;
  const [row] = await db
    .insert(rateLimits)
    .values({ key: hashKey(key), hits: 1, resetAt: fresh })
    .onConflictDoUpdate({
      target: rateLimits.key,
      // Both expressions read the row as it was before this statement.
      set: {
        hits: sql`case when ${rateLimits.resetAt} <= now() then 1 else ${rateLimits.hits} + 1 end`,
        resetAt: sql`case when ${rateLimits.resetAt} <= now() then excluded.reset_at else ${rateLimits.resetAt} end`,
      },
    })
    .returning({
      hits: rateLimits.hits,
      resetSeconds: sql<string>`ceil(extract(epoch from (${rateLimits.resetAt} - now())))`,
    });
  const hits = row?.hits ?? 1;
  // reset_at is stored to the millisecond (rounded), so the ceiling can exceed the window by one.
  const resetSeconds = Math.min(rule.windowSeconds, Math.max(1, Number(row?.resetSeconds ?? rule.windowSeconds)));
  return { allowed: hits <= rule.limit, limit: rule.limit, remaining: Math.max(0, rule.limit - hits), hits, resetSeconds };
}

/** Counts one hit against each `[key, rule]`; allowed only when every one is, resetting when the last refusal ends. */
export async function hitAll(db: DbOrTx, checks: [string, Rule][]): Promise<Verdict> {
  const verdicts: Verdict[] = [];
  for (const [key, rule] of checks) verdicts.push(await hit(db, key, rule));
  const refused = verdicts.filter((v) => !v.allowed);
  if (refused.length === 0) {
    const tightest = verdicts.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    return tightest;
  }
  return refused.reduce((a, b) => (b.resetSeconds > a.resetSeconds ? b : a));
}

/** Deletes counters whose window has ended (housekeeping). */
export async function purgeExpiredRateLimits(db: DbOrTx): Promise<number> {
  const gone = await db.delete(rateLimits).where(lt(rateLimits.resetAt, sql`now()`)).returning({ key: rateLimits.key });
  return gone.length;
}

/**
 * The limited subject for a client address: the address itself for IPv4 (IPv4-mapped IPv6
 * included), its /64 network for IPv6 (one host owns a whole /64 and could rotate through it).
 * Null when the address is unknown: an unknown address is not one client, so it is not limited by
 * address (see lib/http/client-ip.ts for how the server stamps it).
 */
export function clientSubject(ip: string | null): string | null {
  if (!ip || !ipaddr.isValid(ip)) return null;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  if (addr.kind() === "ipv4") return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(":")}::/64`;
}
