import { getDb } from "@/db";
import { authenticate } from "@/lib/api-keys/authenticate";
import { sessionUserFromCookies } from "@/lib/console/session-token";
import type { Actor } from "@/lib/core/actor";
import type { AnyOperation } from "@/lib/core/operation";
import { ApiError } from "@/lib/core/errors";
import { recordAuthFailure, refuseIfFailing } from "./auth-failures";
import { consume, rateLimitHeaders } from "./rate-limit";

/**
 * Who is calling, from the request: a bearer API key for key and scope operations, the console's
 * session cookie for session operations (never a key), nobody for public ones. Authenticated
 * callers are rate limited here (429 with `Retry-After`); the limit headers go on the response.
 * Failed key authentication is limited per client address (lib/http/auth-failures.ts).
 */
export async function actorFor(
  op: AnyOperation,
  request: Request,
  url: URL,
  ip: string | null,
  requestId: string,
): Promise<{ actor: Actor; headers: Record<string, string> }> {
  const access = op.contract.access;
  if (access === "public") return { actor: { type: "anonymous", ip }, headers: {} };

  let actor: Actor;
  let limitKey: string;
  let who: string;
  if (access === "session") {
    const user = await sessionUserFromCookies(await getDb(), request.headers.get("cookie"));
    if (!user) throw new ApiError("session_required", "Sign in to the console; this operation takes a session, not an API key.");
    if (request.method !== "GET") refuseCrossOrigin(request, url);
    actor = { type: "user", userId: user.userId, email: user.email, org: null, principal: null, ip };
    limitKey = `user:${user.userId}`;
    who = "session";
  } else {
    refuseIfFailing(ip);
    let principal;
    try {
      principal = await authenticate(request.headers.get("authorization"), ip, requestId);
    } catch (err) {
      // Wrong, malformed or revoked keys count against the client address (a missing header does not).
      if (err instanceof ApiError && err.code === "invalid_api_key") throw (await recordAuthFailure(ip)) ?? err;
      throw err;
    }
    actor = { type: "apiKey", principal };
    limitKey = principal.apiKeyId ?? principal.actor;
    who = "API key";
  }
  const limit = consume(limitKey);
  const headers = rateLimitHeaders(limit);
  if (!limit.allowed) {
    throw new ApiError("rate_limited", `Too many requests for this ${who}; retry after the window resets.`).withHeaders({ ...headers, "Retry-After": String(limit.resetSeconds) });
  }
  return { actor, headers };
}

/**
 * Changes made with a session need a same-origin `Origin` header: cookies ride along on cross-site
 * requests, so this is the CSRF check (SameSite=Lax is the other).
 */
function refuseCrossOrigin(request: Request, url: URL): void {
  const origin = request.headers.get("origin");
  const host = request.headers.get("host") ?? url.host;
  if (!origin || !URL.canParse(origin) || new URL(origin).host !== host) {
    throw new ApiError("not_permitted", "Cross-origin requests cannot change organizations; send the request from the console's origin.");
  }
}
