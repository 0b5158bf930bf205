import { getDb } from "@/db";
import { authenticate } from "@/lib/api-keys/authenticate";
import type { Principal } from "@/lib/auth/principal";
import { sessionUserFromCookies } from "@/lib/console/session-token";
import type { Actor } from "@/lib/core/actor";
import type { AnyOperation } from "@/lib/core/operation";
import { ApiError } from "@/lib/core/errors";
import { recordAuthFailure, refuseIfFailing } from "./auth-failures";
import { consume, rateLimitHeaders } from "./rate-limit";

/**
 * Who is calling, from the request: a bearer API key for key and scope operations, the console's
 * session cookie for session operations (never a key), nobody for public ones (a public operation
 * with `acceptsKey` reads a key when one is sent). Authenticated callers are rate limited here
 * (429 with `Retry-After`); the limit headers go on the response. Failed key authentication is
 * limited per client address (lib/http/auth-failures.ts).
 */
export async function actorFor(
  op: AnyOperation,
  request: Request,
  url: URL,
  ip: string | null,
  requestId: string,
): Promise<{ actor: Actor; headers: Record<string, string> }> {
  const access = op.contract.access;
  if (access === "public") {
    // Public operations that read an optional key (MCP discovery) authenticate it when sent.
    if (op.contract.acceptsKey && request.headers.get("authorization") !== null)
      return keyCaller(request, ip, requestId);
    return { actor: { type: "anonymous", ip }, headers: {} };
  }
  if (access !== "session") return keyCaller(request, ip, requestId);

  const user = await sessionUserFromCookies(await getDb(), request.headers.get("cookie"));
  if (!user)
    throw new ApiError("session_required", "Sign in to the console; this operation takes a session, not an API key.");
  if (request.method !== "GET") refuseCrossOrigin(request, url);
  const actor: Actor = { type: "user", userId: user.userId, email: user.email, org: null, principal: null, ip };
  return { actor, headers: await limited(`user:${user.userId}`, "session") };
}

/**
 * The bearer key's caller (401 missing/invalid/revoked, 403 outside the key's IP allowlist, 429
 * over the rate limit or after too many failed keys from the address): an `apiKey` actor, or
 * whatever `as` makes of the principal (the MCP server's `mcp` actor). The one key path of every
 * HTTP surface.
 */
export async function keyCaller(
  request: Request,
  ip: string | null,
  requestId: string,
  as: (principal: Principal) => Actor = (principal) => ({ type: "apiKey", principal }),
): Promise<{ actor: Actor; headers: Record<string, string> }> {
  refuseIfFailing(ip);
  let principal: Principal;
  try {
    principal = await authenticate(request.headers.get("authorization"), ip, requestId);
  } catch (err) {
    // Wrong, malformed or revoked keys count against the client address (a missing header does not).
    if (err instanceof ApiError && err.code === "invalid_api_key") throw (await recordAuthFailure(ip)) ?? err;
    throw err;
  }
  return { actor: as(principal), headers: await limited(principal.apiKeyId ?? principal.actor, "API key") };
}

/**
 * Counts one request against `limitKey`'s window (in the database, shared by every process): the
 * limit headers, or 429 with `Retry-After`.
 */
async function limited(limitKey: string, who: string): Promise<Record<string, string>> {
  const limit = await consume(await getDb(), limitKey);
  const headers = rateLimitHeaders(limit);
  if (!limit.allowed) {
    throw new ApiError("rate_limited", `Too many requests for this ${who}; retry after the window resets.`).withHeaders(
      { ...headers, "Retry-After": String(limit.resetSeconds) },
    );
  }
  return headers;
}

/**
 * Changes made with a session need a same-origin `Origin` header: cookies ride along on cross-site
 * requests, so this is the CSRF check (SameSite=Lax is the other).
 */
function refuseCrossOrigin(request: Request, url: URL): void {
  const origin = request.headers.get("origin");
  const host = request.headers.get("host") ?? url.host;
  if (!origin || !URL.canParse(origin) || new URL(origin).host !== host) {
    throw new ApiError(
      "not_permitted",
      "Cross-origin requests cannot change organizations; send the request from the console's origin.",
    );
  }
}
