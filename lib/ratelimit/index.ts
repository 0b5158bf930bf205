import { createHash } from "node:crypto";
import ipaddr from "ipaddr.js";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { type DbOrTx, rowsOf } from "@/db";
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
  return {
    allowed: hits <= rule.limit,
    limit: rule.limit,
    remaining: Math.max(0, rule.limit - hits),
    hits,
    resetSeconds,
  };
}

export interface Grant {
  /** Tokens granted now (0: refused; the refused request is counted). */
  granted: number;
  /** Hits counted in the window after this take (granted tokens, used or not, and refusals). */
  hits: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

/**
 * Takes up to `want` of the window's remaining hits for `key` at once (a process spends them from
 * memory: lib/http/rate-limit.ts), atomically: the row is locked, the grant is what is left up to
 * `want`, and a take with nothing left counts one refused hit. Granted hits count as spent whether
 * or not the taker uses them, so the limit is never exceeded across processes.
 */
export async function take(db: DbOrTx, key: string, rule: Rule, want: number): Promise<Grant> {
  const k = hashKey(key);
  const n = Math.max(1, Math.floor(want));
  for (let attempt = 0; attempt < 3; attempt++) {
    const [row] = rowsOf<{
      hits: number | string;
      old_hits: number | string;
      expired: boolean;
      reset_seconds: number | string;
    }>(
      await db.execute(sql`
        update ${rateLimits} as r set
          hits = case when p.expired then least(${n}::int, ${rule.limit}::int) when p.old_hits >= ${rule.limit}::int then p.old_hits + 1 else least(p.old_hits + ${n}::int, ${rule.limit}::int) end,
          reset_at = case when p.expired then now() + make_interval(secs => ${rule.windowSeconds}) else p.old_reset end
        from (select hits as old_hits, reset_at as old_reset, reset_at <= now() as expired from ${rateLimits} where key = ${k} for update) p
        where r.key = ${k}
        returning r.hits, p.old_hits, p.expired, ceil(extract(epoch from (r.reset_at - now()))) as reset_seconds`),
    );
    if (row) {
      const hits = Number(row.hits);
      const granted = row.expired ? hits : Math.max(0, Math.min(hits, rule.limit) - Number(row.old_hits));
      return { granted, hits, resetSeconds: Math.min(rule.windowSeconds, Math.max(1, Number(row.reset_seconds))) };
    }
    const first = Math.min(n, rule.limit);
    const inserted = await db
      .insert(rateLimits)
      .values({ key: k, hits: first, resetAt: sql`now() + make_interval(secs => ${rule.windowSeconds})` })
      .onConflictDoNothing()
      .returning({ hits: rateLimits.hits });
    if (inserted.length > 0) return { granted: first, hits: first, resetSeconds: rule.windowSeconds };
  }
  throw new Error("rate limit row could neither be updated nor inserted");
}

/**
 * The hits counted against `key` in its current window, without counting one (0 when the window
 * has ended or never began), and the seconds until it resets. A lock-out asks this before the
 * costly work a failure is counted for (lib/buckets/share-throttle.ts).
 */
export async function peek(db: DbOrTx, key: string): Promise<{ hits: number; resetSeconds: number }> {
  const [row] = await db
    .select({
      hits: rateLimits.hits,
      resetSeconds: sql<string>`ceil(extract(epoch from (${rateLimits.resetAt} - now())))`,
    })
    .from(rateLimits)
    .where(and(eq(rateLimits.key, hashKey(key)), gt(rateLimits.resetAt, sql`now()`)));
  return row ? { hits: row.hits, resetSeconds: Math.max(1, Number(row.resetSeconds)) } : { hits: 0, resetSeconds: 0 };
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
  if (!ip) return null;
  const known = subjects.get(ip);
  if (known !== undefined) return known;
  const subject = subjectOf(ip);
  // Every authenticated request asks for its address's subject: parsed once per address (bounded).
  if (subjects.size >= 10_000) subjects.clear();
  subjects.set(ip, subject);
  return subject;
}

const subjects = new Map<string, string | null>();

function subjectOf(ip: string): string | null {
  if (!ipaddr.isValid(ip)) return null;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  if (addr.kind() === "ipv4") return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(":")}::/64`;
}
