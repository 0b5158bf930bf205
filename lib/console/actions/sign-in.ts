"use server";

import { AuthError } from "next-auth";
import { z } from "zod";
import { getDb } from "@/db";
import { magicLinkBody, signInBody, signUpBody } from "@/lib/account/contracts";
import { registerUser } from "@/lib/account/users";
import { type ActionResult, actionError, invalidInput } from "@/lib/console/action";
import { signIn } from "@/lib/console/auth";
import { headers } from "next/headers";
import { readClientIp } from "@/lib/http/client-ip";
import { authAttempt, tooManyAttempts } from "@/lib/console/throttle";
import { safeNext } from "@/lib/console/redirects";

/** Sign-in and sign-up (Auth.js flows, not operations): the forms of the signed-out pages. */

const next = { next: z.string().optional() };

const throttledResult = (message: string): ActionResult => ({
  ok: false,
  error: { code: "rate_limited", message, param: null, fields: {} },
});

/** Password and email-link attempts are throttled inside Auth.js (lib/console/auth.ts); sign-up here. */
async function signUpThrottle(email: string): Promise<ActionResult | null> {
  const verdict = await authAttempt(await getDb(), "sign-up", email, readClientIp(await headers()));
  return verdict.allowed ? null : throttledResult(tooManyAttempts(verdict.resetSeconds));
}

const isThrottled = (err: unknown) => (err as { code?: unknown } | null)?.code === "rate_limited";

export async function passwordSignIn(input: unknown): Promise<ActionResult> {
  const parsed = signInBody.extend(next).safeParse(input);
  if (!parsed.success) return invalidInput(parsed.error);
  try {
    await signIn("password", {
      email: parsed.data.email,
      password: parsed.data.password,
      redirectTo: safeNext(parsed.data.next),
    });
    return { ok: true, data: null };
  } catch (err) {
    if (err instanceof AuthError && isThrottled(err))
      return throttledResult("Too many sign-in attempts; try again in a few minutes.");
    if (err instanceof AuthError)
      return {
        ok: false,
        error: { code: "invalid_credentials", message: "Wrong email or password.", param: null, fields: {} },
      };
    throw err;
  }
}

export async function magicLinkSignIn(input: unknown): Promise<ActionResult> {
  const parsed = magicLinkBody.extend(next).safeParse(input);
  if (!parsed.success) return invalidInput(parsed.error);
  try {
    await signIn("email", { email: parsed.data.email, redirectTo: safeNext(parsed.data.next) });
    return { ok: true, data: null };
  } catch (err) {
    if (err instanceof AuthError)
      return {
        ok: false,
        error: {
          code: "not_permitted",
          message: "This address cannot sign in here. Ask an admin for an invitation.",
          param: "email",
          fields: {},
        },
      };
    throw err;
  }
}

export async function signUp(input: unknown): Promise<ActionResult> {
  const parsed = signUpBody.extend(next).safeParse(input);
  if (!parsed.success) return invalidInput(parsed.error);
  const throttled = await signUpThrottle(parsed.data.email);
  if (throttled) return throttled;
  try {
    const { next: after, ...account } = parsed.data;
    await registerUser(await getDb(), account);
    await signIn("password", { email: account.email, password: account.password, redirectTo: safeNext(after) });
    return { ok: true, data: null };
  } catch (err) {
    if (err instanceof AuthError) return actionError(err);
    if (err && typeof err === "object" && "digest" in err) throw err;
    return actionError(err);
  }
}
