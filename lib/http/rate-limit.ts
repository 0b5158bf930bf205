import type { DbOrTx } from "@/db";
import { env } from "@/lib/env";
import { take, type Verdict } from "@/lib/ratelimit";

/**
 * The per-caller request limit (`RATE_LIMIT_PER_MINUTE`, one-minute fixed windows), counted in the
 * shared store (lib/ratelimit, the database), so every server process — a cluster's workers,
 * several hosts on one PostgreSQL — spends one allowance.
 *
 * A process does not write the count on every request: it takes a block of the window's remaining
 * requests at once (`take`, one atomic statement) and spends it from memory. A block is a sixteenth
 * of what is left (at most 100, at least 1), so blocks shrink as the window fills and the last
 * requests are counted one by one. Taken requests count as spent, used or not: the limit is never
 * exceeded across processes, and a process can leave at most its unspent block unused until the
 * window ends. A refusal is remembered until the window ends (the count only grows within it).
 * With one process, every figure is exact.
 */
export type RateLimitResult = Verdict;

const WINDOW_SECONDS = 60;
const BLOCK_SHARE = 16;
const BLOCK_MAX = 100;

interface Lease {
  /** Requests taken and not yet spent by this process. */
  left: number;
  /** The window's count in the database as of this process's last take. */
  hits: number;
  /** When the window ends (ms). */
  until: number;
  refused: boolean;
  taking?: Promise<void>;
}

const leases = new Map<string, Lease>();

function verdict(lease: Lease, limit: number, allowed: boolean, now: number): RateLimitResult {
  const counted = lease.hits - lease.left;
  return {
    allowed,
    limit,
    hits: counted,
    remaining: Math.max(0, limit - counted),
    resetSeconds: Math.max(1, Math.ceil((lease.until - now) / 1000)),
  };
}

/** Counts one request against `key`'s window. */
export async function consume(
  db: DbOrTx,
  key: string,
  limit: number = env.RATE_LIMIT_PER_MINUTE,
): Promise<RateLimitResult> {
  for (;;) {
    const now = Date.now();
    let lease = leases.get(key);
    if (lease && lease.until <= now && !lease.taking) {
      leases.delete(key);
      lease = undefined;
    }
    if (lease?.taking) {
      await lease.taking;
      continue;
    }
    if (lease?.refused) {
      lease.hits += 1;
      return verdict(lease, limit, false, now);
    }
    if (lease && lease.left > 0) {
      lease.left -= 1;
      return verdict(lease, limit, true, now);
    }
    if (leases.size > 10_000) for (const [k, l] of leases) if (l.until <= now && !l.taking) leases.delete(k);
    const current: Lease = lease ?? { left: 0, hits: 0, until: now + WINDOW_SECONDS * 1000, refused: false };
    const want = Math.max(1, Math.min(BLOCK_MAX, Math.floor((limit - current.hits) / BLOCK_SHARE)));
    current.taking = take(db, `api-requests:${key}`, { limit, windowSeconds: WINDOW_SECONDS }, want).then(
      (grant) => {
        current.hits = grant.hits;
        current.left = grant.granted;
        current.refused = grant.granted === 0;
        current.until = Date.now() + grant.resetSeconds * 1000;
        current.taking = undefined;
      },
      (err: unknown) => {
        leases.delete(key);
        current.taking = undefined;
        throw err;
      },
    );
    leases.set(key, current);
    await current.taking;
    // The refused take was counted by the database; a grant is spent at the top of the loop.
    if (current.refused) return verdict(current, limit, false, Date.now());
  }
}

export function rateLimitHeaders(r: RateLimitResult): Record<string, string> {
  return {
    "RateLimit-Limit": String(r.limit),
    "RateLimit-Remaining": String(r.remaining),
    "RateLimit-Reset": String(r.resetSeconds),
    "RateLimit-Policy": `${r.limit};w=${WINDOW_SECONDS}`,
  };
}

/**
 * Requests counted in the key's window as this process knows it (0 when none): the database's
 * count at this process's last take, less what it has taken and not spent.
 */
export function used(key: string, now: number = Date.now()): number {
  const lease = leases.get(key);
  return lease && lease.until > now ? lease.hits - lease.left : 0;
}
