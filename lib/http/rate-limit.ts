import type { DbOrTx } from "@/db";
import { env } from "@/lib/env";
import { hit, type Verdict } from "@/lib/ratelimit";

/**
 * The per-caller request limit (`RATE_LIMIT_PER_MINUTE`, one-minute fixed windows): a counter in
 * the shared store (lib/ratelimit, the database), so every server process — a cluster's workers,
 * several hosts on one PostgreSQL — counts against one allowance.
 */
export type RateLimitResult = Verdict;

const WINDOW_SECONDS = 60;

/**
 * The count each key's latest request in this process was given, for whoami's
 * `requestsThisMinute` (the request's own verdict: no second read). Only a report; the limit is
 * decided by the database.
 */
const seen = new Map<string, { hits: number; until: number }>();

/** Counts one request against `key`'s window. */
export async function consume(db: DbOrTx, key: string, limit: number = env.RATE_LIMIT_PER_MINUTE): Promise<RateLimitResult> {
  const verdict = await hit(db, `api-requests:${key}`, { limit, windowSeconds: WINDOW_SECONDS });
  const now = Date.now();
  if (seen.size > 10_000) for (const [k, s] of seen) if (s.until <= now) seen.delete(k);
  seen.set(key, { hits: verdict.hits, until: now + verdict.resetSeconds * 1000 });
  return verdict;
}

export function rateLimitHeaders(r: RateLimitResult): Record<string, string> {
  return {
    "RateLimit-Limit": String(r.limit),
    "RateLimit-Remaining": String(r.remaining),
    "RateLimit-Reset": String(r.resetSeconds),
    "RateLimit-Policy": `${r.limit};w=${WINDOW_SECONDS}`,
  };
}

/** Requests counted in the key's window as of its latest request in this process (0 when none). */
export function used(key: string, now: number = Date.now()): number {
  const s = seen.get(key);
  return s && s.until > now ? s.hits : 0;
}
