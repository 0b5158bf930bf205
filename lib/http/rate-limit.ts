import { env } from "@/lib/env";

/**
 * Per-key fixed-window limiter (one-minute windows) kept in this process's memory. With several
 * server processes the effective limit is per process; documented in the README.
 */
export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

const WINDOW_MS = 60_000;
const windows = new Map<string, { start: number; count: number }>();
let lastSweep = 0;

export function consume(key: string, limit: number = env.RATE_LIMIT_PER_MINUTE, now: number = Date.now()): RateLimitResult {
  if (now - lastSweep > WINDOW_MS) {
    lastSweep = now;
    for (const [k, w] of windows) if (now - w.start >= WINDOW_MS) windows.delete(k);
  }
  let w = windows.get(key);
  if (!w || now - w.start >= WINDOW_MS) {
    w = { start: now, count: 0 };
    windows.set(key, w);
  }
  const resetSeconds = Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
  if (w.count >= limit) return { allowed: false, limit, remaining: 0, resetSeconds };
  w.count += 1;
  return { allowed: true, limit, remaining: limit - w.count, resetSeconds };
}

export function rateLimitHeaders(r: RateLimitResult): Record<string, string> {
  return {
    "RateLimit-Limit": String(r.limit),
    "RateLimit-Remaining": String(r.remaining),
    "RateLimit-Reset": String(r.resetSeconds),
    "RateLimit-Policy": `${r.limit};w=60`,
  };
}

/** Requests counted in the key's current window (0 when none). */
export function used(key: string, now: number = Date.now()): number {
  const w = windows.get(key);
  return w && now - w.start < WINDOW_MS ? w.count : 0;
}
