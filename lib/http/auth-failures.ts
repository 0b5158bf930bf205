import { getDb } from "@/db";
import { ApiError } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { clientSubject, hit } from "@/lib/ratelimit";

/**
 * Failed API-key authentication per client address (`API_AUTH_FAILURES_PER_MINUTE`). The count is
 * kept in the shared store (lib/ratelimit, the database), so all processes see one count; once an
 * address is over the limit, each process remembers the refusal in memory until the window ends and
 * answers 429 before any database work. A flood of bad keys therefore costs at most `limit` lookups
 * and counter writes per address (IPv6: per /64) per minute, then nothing. While refused, an address
 * is refused whatever key it sends: telling a valid key apart would take the lookup being avoided.
 * Addresses the server could not stamp (lib/http/client-ip.ts) are not limited this way.
 */
const refusedUntil = new Map<string, number>();
const MAX_REMEMBERED = 100_000;

function refusal(seconds: number): ApiError {
  return new ApiError(
    "rate_limited",
    `Too many requests with invalid API keys from this address; retry after ${seconds} seconds.`,
  ).withHeaders({
    "Retry-After": String(seconds),
  });
}

/** Throws 429 (from memory, no database work) while `ip` is refused. */
export function refuseIfFailing(ip: string | null, now: number = Date.now()): void {
  const subject = clientSubject(ip);
  const until = subject ? refusedUntil.get(subject) : undefined;
  if (!subject || until === undefined) return;
  if (until <= now) {
    refusedUntil.delete(subject);
    return;
  }
  throw refusal(Math.max(1, Math.ceil((until - now) / 1000)));
}

/** Counts one failed authentication from `ip`; the 429 to answer instead when this one is over the limit. */
export async function recordAuthFailure(ip: string | null, now: number = Date.now()): Promise<ApiError | null> {
  const subject = clientSubject(ip);
  if (!subject) return null;
  const verdict = await hit(await getDb(), `api-auth-failure:${subject}`, {
    limit: env.API_AUTH_FAILURES_PER_MINUTE,
    windowSeconds: 60,
  });
  if (verdict.allowed) return null;
  if (refusedUntil.size >= MAX_REMEMBERED) {
    for (const [k, until] of refusedUntil) if (until <= now) refusedUntil.delete(k);
    if (refusedUntil.size >= MAX_REMEMBERED) refusedUntil.clear();
  }
  refusedUntil.set(subject, now + verdict.resetSeconds * 1000);
  return refusal(verdict.resetSeconds);
}

/** Forgets remembered refusals (tests). */
export function forgetAuthFailures(): void {
  refusedUntil.clear();
}
