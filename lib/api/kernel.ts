import { randomBytes } from "node:crypto";
import type { z } from "zod";
import { getDb } from "@/db";
import { authenticate } from "@/lib/api-keys/authenticate";
import type { Principal } from "@/lib/auth/principal";
import { type SessionUser, sessionUserFromCookies } from "@/lib/console/session-token";
import { env } from "@/lib/env";
import { errorFields, log } from "@/lib/log";
import { readClientIp } from "./client-ip";
import { BinaryBody, type Contract, type ContractSpec, type HandlerInput, METHODS, type Method } from "./contract";
import { ApiError, invalidRequest, notFound } from "./errors";
import { claimIdempotencyKey, completeIdempotencyKey, IDEMPOTENCY_KEY_MAX, requestFingerprint } from "./idempotency";
import { consume, rateLimitHeaders } from "./rate-limit";
import { zodIssueToError } from "./zod-errors";

/**
 * The API kernel: one wrapper that turns a contract plus a handler into a Next.js route handler.
 * Order of checks: key in query string (400), API key (401), IP allowlist (403), scope (403),
 * rate limit (429), path params (404), query and body (400/413), Idempotency-Key, handler,
 * response schema. Every failure leaves in the error envelope; every response has X-Request-Id.
 */

export const REQUEST_ID_HEADER = "X-Request-Id";

export type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };
export type RouteHandler = ((request: Request, context: RouteContext) => Promise<Response>) & {
  /** The operations this handler serves (read by the contract coverage test). */
  operations: readonly Operation[];
};

/** The signed-in console user of a `session` operation. */
export interface SessionPrincipal extends SessionUser {
  /** Audit actor `user:<id>`. */
  actor: string;
  ip: string | null;
}

type PrincipalFor<C extends ContractSpec> = C["access"] extends "public" ? null : C["access"] extends "session" ? SessionPrincipal : Principal;
export type Handler<C extends ContractSpec> = (input: HandlerInput<C, PrincipalFor<C>>) => Promise<z.input<C["response"]>>;

export interface Operation {
  contract: Contract;
  run: (request: Request, context: RouteContext, requestId: string) => Promise<Response>;
}

const QUERY_SECRET_NAMES = new Set(["api_key", "apikey", "key", "access_token", "token", "authorization", "bearer"]);

function newRequestId(): string {
  return `req_${randomBytes(12).toString("base64url")}`;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  if (body instanceof BinaryBody) {
    const disposition: Record<string, string> = body.filename ? { "Content-Disposition": `attachment; filename*=UTF-8''${encodeURIComponent(body.filename)}` } : {};
    return new Response(Buffer.from(body.bytes), {
      status,
      headers: { "Content-Type": body.contentType, "Cache-Control": "private, no-store", "X-Content-Type-Options": "nosniff", ...disposition, ...headers },
    });
  }
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });
}

function errorResponse(err: ApiError, headers: Record<string, string> = {}): Response {
  return json(err.status, err.toBody(), { ...headers, ...err.headers });
}

function refuseKeyInQuery(url: URL): void {
  for (const [name, value] of url.searchParams) {
    if (QUERY_SECRET_NAMES.has(name.toLowerCase()) || /^svc_(live|test)_/.test(value)) {
      throw invalidRequest("API keys belong in the Authorization header, never in the query string.", name);
    }
  }
}

function parseWith<T extends z.ZodType>(schema: T, value: unknown, prefix: string | null = null): z.output<T> {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (!parsed.success) throw zodIssueToError(parsed.error.issues[0], prefix);
  return parsed.data;
}

function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

async function readBody(request: Request, max: number): Promise<string> {
  const tooLarge = () => new ApiError("payload_too_large", `The request body exceeds ${max} bytes.`);
  const declared = request.headers.get("content-length");
  if (declared && Number(declared) > max) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseJsonBody(raw: string, contract: Contract): unknown {
  if (raw.trim() === "") return contract.body ? {} : undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalidRequest("The request body is not valid JSON.");
  }
  if (!contract.body) {
    if (value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) return undefined;
    throw invalidRequest("This operation takes no request body.");
  }
  return value;
}

function idempotencyKeyOf(request: Request, contract: Contract, body: unknown): string | null {
  const field = contract.idempotencyKeyField;
  const fromBody = field && body && typeof body === "object" ? (body as Record<string, unknown>)[field] : undefined;
  const key = request.headers.get("idempotency-key") ?? (typeof fromBody === "string" ? fromBody : null);
  if (key === null) return null;
  if (key.length < 1 || key.length > IDEMPOTENCY_KEY_MAX || !/^[\x21-\x7e]+$/.test(key)) {
    throw invalidRequest(`Idempotency-Key must be 1..${IDEMPOTENCY_KEY_MAX} printable ASCII characters.`, "Idempotency-Key");
  }
  return key;
}

/**
 * A console session from the request's cookie. Changes also need a same-origin `Origin` header:
 * cookies ride along on cross-site requests, so this is the CSRF check (SameSite=Lax is the other).
 */
async function authenticateSession(request: Request, url: URL, ip: string | null): Promise<SessionPrincipal> {
  const user = await sessionUserFromCookies(await getDb(), request.headers.get("cookie"));
  if (!user) throw new ApiError("session_required", "Sign in to the console; this operation takes a session, not an API key.");
  if (request.method !== "GET") {
    const origin = request.headers.get("origin");
    const host = request.headers.get("host") ?? url.host;
    if (!origin || !URL.canParse(origin) || new URL(origin).host !== host) {
      throw new ApiError("not_permitted", "Cross-origin requests cannot change organizations; send the request from the console's origin.");
    }
  }
  return { ...user, actor: `user:${user.userId}`, ip };
}

/** Binds a handler to its contract. */
export function handle<C extends ContractSpec>(contract: Contract<C>, handler: Handler<C>): Operation {
  const run = async (request: Request, context: RouteContext, requestId: string): Promise<Response> => {
    const url = new URL(request.url);
    refuseKeyInQuery(url);
    const ip = readClientIp(request.headers);
    const headers: Record<string, string> = {};

    let principal: Principal | null = null;
    let sessionPrincipal: SessionPrincipal | null = null;
    if (contract.access === "session") {
      sessionPrincipal = await authenticateSession(request, url, ip);
      const limit = consume(sessionPrincipal.actor);
      Object.assign(headers, rateLimitHeaders(limit));
      if (!limit.allowed) {
        throw new ApiError("rate_limited", "Too many requests for this session; retry after the window resets.").withHeaders({ ...headers, "Retry-After": String(limit.resetSeconds) });
      }
    } else if (contract.access !== "public") {
      principal = await authenticate(request.headers.get("authorization"), ip, requestId);
      if (contract.access !== "key" && !principal.scopes.has(contract.access)) {
        throw new ApiError("scope_missing", `This API key lacks the "${contract.access}" scope this operation requires.`);
      }
      const limit = consume(principal.apiKeyId ?? principal.actor);
      Object.assign(headers, rateLimitHeaders(limit));
      if (!limit.allowed) {
        throw new ApiError("rate_limited", "Too many requests for this API key; retry after the window resets.").withHeaders({
          ...headers,
          "Retry-After": String(limit.resetSeconds),
        });
      }
    }

    const rawParams = await context.params;
    let params: unknown;
    if (contract.params) {
      const parsed = contract.params.safeParse(rawParams);
      if (!parsed.success) throw notFound("resource", String(parsed.error.issues[0]?.path[0] ?? null));
      params = parsed.data;
    }
    const query = contract.query ? parseWith(contract.query, queryObject(url)) : undefined;
    if (!contract.query && url.searchParams.size > 0) {
      throw invalidRequest(`Unknown query parameter "${[...url.searchParams.keys()][0]}".`, [...url.searchParams.keys()][0]);
    }

    const hasBody = request.method !== "GET" && request.method !== "DELETE";
    const raw = hasBody ? await readBody(request, contract.maxBodyBytes ?? env.MAX_BODY_BYTES) : "";
    const bodyValue = hasBody ? parseJsonBody(raw, contract) : undefined;
    const body = contract.body ? parseWith(contract.body, bodyValue) : undefined;

    const execute = async (): Promise<{ status: number; body: unknown }> => {
      const db = await getDb();
      const result = await handler({ db, principal: sessionPrincipal ?? principal, params, query, body, requestId, ip } as HandlerInput<C, PrincipalFor<C>>);
      if (contract.binary && result instanceof BinaryBody) return { status: contract.successStatus, body: result };
      const out = contract.response.safeParse(result);
      if (!out.success) {
        log.error("response failed its schema", { requestId, operation: contract.id, issues: out.error.issues.slice(0, 5) });
        throw new Error(`Response of ${contract.id} does not match its schema`);
      }
      return { status: contract.successStatus, body: out.data };
    };

    const idemKey = contract.idempotent && principal ? idempotencyKeyOf(request, contract, body) : null;
    if (!idemKey || !principal) {
      const result = await execute();
      return json(result.status, result.body, headers);
    }

    // The key's claim is scoped to this operation; the fingerprint covers the whole request.
    const fingerprint = requestFingerprint(request.method, url.pathname, url.search, raw);
    const claim = await claimIdempotencyKey(principal.orgId, principal.apiKeyId, idemKey, fingerprint);
    if (claim.kind === "replay") {
      return json(claim.response.status, claim.response.body, { ...headers, "Idempotent-Replayed": "true" });
    }
    let outcome: { status: number; body: unknown };
    try {
      outcome = await execute();
    } catch (err) {
      const status = err instanceof ApiError ? err.status : 500;
      await completeIdempotencyKey(principal.orgId, idemKey, { status, body: err instanceof ApiError ? err.toBody() : null });
      throw err;
    }
    await completeIdempotencyKey(principal.orgId, idemKey, outcome);
    return json(outcome.status, outcome.body, headers);
  };
  return { contract: contract, run };
}

/** Wraps a unit of work so that every outcome becomes a response with a request id. */
async function guarded(requestId: string, work: () => Promise<Response>, operation: string): Promise<Response> {
  let response: Response;
  try {
    response = await work();
  } catch (err) {
    if (err instanceof ApiError) {
      response = errorResponse(err);
    } else {
      log.error("unhandled error", { requestId, operation, ...errorFields(err) });
      response = errorResponse(new ApiError("internal_error", `An unexpected error occurred. Reference: ${requestId}.`));
    }
  }
  response.headers.set(REQUEST_ID_HEADER, requestId);
  return response;
}

/**
 * The exports of one route file: each method of the path, with 405 (and `Allow`) for the methods
 * the path does not serve. Usage: `export const { GET, POST, PUT, PATCH, DELETE } = route(...)`.
 */
export function route(...operations: Operation[]): Record<Method, RouteHandler> {
  const byMethod = new Map(operations.map((op) => [op.contract.method, op]));
  const allow = [...byMethod.keys()].join(", ");
  const handlers = {} as Record<Method, RouteHandler>;
  for (const method of METHODS) {
    const op = byMethod.get(method);
    const fn = (request: Request, context: RouteContext) => {
      const requestId = newRequestId();
      if (!op) {
        return guarded(
          requestId,
          () => Promise.reject(new ApiError("method_not_allowed", `${method} is not allowed here; use ${allow}.`).withHeaders({ Allow: allow })),
          `${method} (none)`,
        );
      }
      return guarded(requestId, () => op.run(request, context, requestId), op.contract.id);
    };
    handlers[method] = Object.assign(fn, { operations: op ? [op] : [] });
  }
  return handlers;
}

/** Route exports for paths with no operation (the /v1 catch-all): 404 in the envelope. */
export function notFoundRoute(): Record<Method, RouteHandler> {
  const handlers = {} as Record<Method, RouteHandler>;
  for (const method of METHODS) {
    const fn = (request: Request) =>
      guarded(
        newRequestId(),
        () => Promise.reject(new ApiError("resource_not_found", `No operation ${method} ${new URL(request.url).pathname}.`)),
        "not_found",
      );
    handlers[method] = Object.assign(fn, { operations: [] });
  }
  return handlers;
}
