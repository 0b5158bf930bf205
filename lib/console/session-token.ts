import { decode } from "next-auth/jwt";
import type { DbOrTx } from "@/db";
import { authSecret } from "./secret";

/** Auth.js's session cookie names: `__Secure-` over https, plain over http. */
export const SESSION_COOKIES = ["__Secure-authjs.session-token", "authjs.session-token"] as const;

export interface SessionUser {
  userId: string;
  email: string | null;
}

/** The cookie that remembers the organization a console user is working in. */
export const ORG_COOKIE = "svc_org";

/** One cookie's value from a `Cookie` header. */
export function readCookie(header: string, name: string): string | null {
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return null;
}

/**
 * The console user a request's session cookie names, or null. Decodes the Auth.js JWT (JWE) with
 * the cookie name as salt, exactly as Auth.js does, so `/v1` session operations and console pages
 * agree on who is signed in.
 */
export async function sessionUserFromCookies(db: DbOrTx, cookieHeader: string | null): Promise<SessionUser | null> {
  if (!cookieHeader) return null;
  for (const name of SESSION_COOKIES) {
    const token = readCookie(cookieHeader, name);
    if (!token) continue;
    try {
      const payload = await decode({ token, secret: await authSecret(db), salt: name });
      if (payload?.sub) return { userId: payload.sub, email: typeof payload.email === "string" ? payload.email : null };
    } catch {
      return null;
    }
  }
  return null;
}
