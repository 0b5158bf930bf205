import { CredentialsSignin } from "next-auth";
import type { DbOrTx } from "@/db";
import { normalizeEmail } from "@/lib/organizations/service";
import { clientSubject, hitAll, type Rule, type Verdict } from "@/lib/ratelimit";

export type AuthAttempt = "sign-in" | "email-link" | "sign-up";

/**
 * Limits per kind of attempt, per email address and per client address. Password guesses: 10 per
 * address per 15 minutes (Argon2's memory cost stays bounded too); sign-in emails: 5 per address per
 * 15 minutes (the link lives 15 minutes), so the mail cannot be turned into a relay; sign-ups as
 * before. Per client address the limits are looser (several people can share one address).
 */
export const AUTH_LIMITS: Record<AuthAttempt, { perEmail: Rule; perClient: Rule }> = {
  "sign-in": { perEmail: { limit: 10, windowSeconds: 900 }, perClient: { limit: 30, windowSeconds: 60 } },
  "email-link": { perEmail: { limit: 5, windowSeconds: 900 }, perClient: { limit: 30, windowSeconds: 900 } },
  "sign-up": { perEmail: { limit: 10, windowSeconds: 60 }, perClient: { limit: 30, windowSeconds: 60 } },
};

/**
 * Counts one attempt of `kind` for `email` from `ip` in the shared store (lib/ratelimit, the
 * database): the same count whether the attempt came through a console form or straight to
 * Auth.js's routes (`/api/auth/callback/password`, `/api/auth/signin/email`), in any process.
 * An unknown client address is limited per email address only.
 */
export async function authAttempt(db: DbOrTx, kind: AuthAttempt, email: string, ip: string | null): Promise<Verdict> {
  const rules = AUTH_LIMITS[kind];
  const client = clientSubject(ip);
  return hitAll(db, [
    [`auth:${kind}:email:${normalizeEmail(email)}`, rules.perEmail],
    ...(client ? [[`auth:${kind}:ip:${client}`, rules.perClient] as [string, Rule]] : []),
  ]);
}

export const tooManyAttempts = (seconds: number) => `Too many attempts; try again in ${seconds} seconds.`;

/** The sign-in page's `error=` for a throttled email-link request. */
export const THROTTLED_ERROR = "RateLimited";

/** Thrown by the credentials provider's `authorize` when the attempt is throttled (Auth.js redirects with `code=rate_limited`). */
export class SignInThrottled extends CredentialsSignin {
  code = "rate_limited";
}
