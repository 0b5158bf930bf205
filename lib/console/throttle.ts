import { headers } from "next/headers";
import { readClientIp } from "@/lib/api/client-ip";
import { consume } from "@/lib/api/rate-limit";
import { normalizeEmail } from "@/lib/organizations/service";
import type { ActionResult } from "./action";

/** Attempts per minute for one client address, and for one email address, per kind of attempt. */
export const AUTH_LIMITS = { perIp: 30, perEmail: 10 } as const;

/**
 * Throttles sign-in, email-link and sign-up attempts per client address and per email address
 * (per server process, like the API's limiter): password guessing and Argon2's memory cost stay
 * bounded, and the sign-in mail cannot be turned into a relay. Null when the attempt may proceed.
 */
export async function authThrottle(kind: "sign-in" | "email-link" | "sign-up", email: string): Promise<ActionResult<never> | null> {
  const ip = readClientIp(await headers()) ?? "unknown";
  const byIp = consume(`auth:${kind}:ip:${ip}`, AUTH_LIMITS.perIp);
  const byEmail = consume(`auth:${kind}:email:${normalizeEmail(email)}`, AUTH_LIMITS.perEmail);
  if (byIp.allowed && byEmail.allowed) return null;
  const seconds = Math.max(byIp.allowed ? 0 : byIp.resetSeconds, byEmail.allowed ? 0 : byEmail.resetSeconds);
  return { ok: false, error: { code: "rate_limited", message: `Too many attempts; try again in ${seconds} seconds.`, param: null, fields: {} } };
}
