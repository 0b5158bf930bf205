import type { DbOrTx } from "@/db";
import { clientSubject, hitAll, peek, type Rule } from "@/lib/ratelimit";

/**
 * The guard on share-link passwords (issue 22). Two parts:
 *
 * - Failures are counted in the shared store (lib/ratelimit, the database: every process sees one
 *   count), per link and per client address (IPv6: per /64), like the console's sign-in throttle:
 *   10 per link and 30 per address (several people can share one) per 15 minutes. Once either count reaches its limit the link (or the address) is locked out until the window
 *   ends: every password — the right one too — is answered 429 with `Retry-After`, before any hash.
 * - Password checks (Argon2id, ~19 MiB and tens of milliseconds of CPU each) are capped per
 *   process: at most MAX_CHECKS_PER_PROCESS at once, and one at a time per link. A check over the
 *   cap is answered 429 (`Retry-After: 1`) at once, without hashing, so concurrent guessing costs
 *   the server a bounded share of its CPU and cannot slow other tenants' requests.
 *
 * A request without a password is not a guess and is not counted. The caps are per process: in a
 * cluster each worker runs its own, so a link can take one check per worker at once, and the
 * lock-out (read, then counted after the hash) can let one extra failure per worker through.
 */
export const SHARE_PASSWORD_LIMITS: { perLink: Rule; perClient: Rule } = {
  perLink: { limit: 10, windowSeconds: 900 },
  perClient: { limit: 30, windowSeconds: 900 },
};
export const MAX_CHECKS_PER_PROCESS = 2;
export const MAX_CHECKS_PER_LINK = 1;

const linkKey = (linkId: string) => `share-password:link:${linkId}`;
const clientKey = (subject: string) => `share-password:ip:${subject}`;

/** Seconds until the lock-out of `linkId` or of the address `ip` ends; null when neither is locked out. */
export async function shareLockout(db: DbOrTx, linkId: string, ip: string | null): Promise<number | null> {
  const subject = clientSubject(ip);
  const checks: [string, Rule][] = [[linkKey(linkId), SHARE_PASSWORD_LIMITS.perLink]];
  if (subject) checks.push([clientKey(subject), SHARE_PASSWORD_LIMITS.perClient]);
  let seconds: number | null = null;
  for (const [key, rule] of checks) {
    const seen = await peek(db, key);
    if (seen.hits >= rule.limit) seconds = Math.max(seconds ?? 0, seen.resetSeconds);
  }
  return seconds;
}

/** Counts one wrong password for `linkId` from `ip`. */
export async function recordShareFailure(db: DbOrTx, linkId: string, ip: string | null): Promise<void> {
  const subject = clientSubject(ip);
  await hitAll(db, [
    [linkKey(linkId), SHARE_PASSWORD_LIMITS.perLink],
    ...(subject ? [[clientKey(subject), SHARE_PASSWORD_LIMITS.perClient] as [string, Rule]] : []),
  ]);
}

let inFlight = 0;
const perLink = new Map<string, number>();
const stats = { peak: 0, checks: 0, refusedBusy: 0 };

/**
 * A slot for one password check of `linkId`: its release function, or null when the process or
 * the link is at its cap (answer 429 without hashing).
 */
export function claimPasswordCheck(linkId: string): (() => void) | null {
  const mine = perLink.get(linkId) ?? 0;
  if (inFlight >= MAX_CHECKS_PER_PROCESS || mine >= MAX_CHECKS_PER_LINK) {
    stats.refusedBusy++;
    return null;
  }
  inFlight++;
  perLink.set(linkId, mine + 1);
  stats.checks++;
  stats.peak = Math.max(stats.peak, inFlight);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    inFlight--;
    const left = (perLink.get(linkId) ?? 1) - 1;
    if (left > 0) perLink.set(linkId, left);
    else perLink.delete(linkId);
  };
}

/** The process's password checks since the last reset: how many ran, the most at once, how many were refused as busy (tests). */
export function passwordCheckStats(reset = false): {
  peak: number;
  checks: number;
  refusedBusy: number;
  inFlight: number;
} {
  const out = { ...stats, inFlight };
  if (reset) Object.assign(stats, { peak: inFlight, checks: 0, refusedBusy: 0 });
  return out;
}
