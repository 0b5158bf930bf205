import { env } from "@/lib/env";
import type { Method } from "@/lib/core/contract";
import { ApiError, invalidRequest } from "@/lib/core/errors";
import type { Actor } from "@/lib/core/actor";
import { BinaryBody, RawReply } from "@/lib/core/contract";
import { authorize, invoke, newRequestId } from "@/lib/core/invoke";
import type { AnyOperation } from "@/lib/core/operation";
import { errorFields, log } from "@/lib/log";
import { recordRequest } from "@/lib/request-logs/recorder";
import { actorFor } from "./auth";
import { readClientIp } from "./client-ip";
import { pathSegments } from "./path";
import { errorResponse, REQUEST_ID_HEADER, respond } from "./respond";
import { compileRoutes, type RouteTable } from "./routes";

/**
 * The HTTP adapter of the operation core: `/v1/*` in, the error envelope or the operation's
 * response out. In order: request id; the path, decoded safely (a malformed percent-escape is a
 * 400, not a crash); the route (404, or 405 with `Allow`); an API key in the query string (400);
 * the caller (key 401/403, session 401/403, rate limit 429); access (403); the body (413, invalid
 * JSON 400); then `invoke`, which parses, runs, audits and stores idempotent outcomes.
 */

const QUERY_SECRET_NAMES = new Set(["api_key", "apikey", "key", "access_token", "token", "authorization", "bearer"]);

function refuseKeyInQuery(url: URL): void {
  for (const [name, value] of url.searchParams) {
    if (QUERY_SECRET_NAMES.has(name.toLowerCase()) || /^svc_(live|test)_/.test(value)) {
      throw invalidRequest("API keys belong in the Authorization header, never in the query string.", name);
    }
  }
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

function parseJson(raw: string): unknown {
  if (raw.trim() === "") return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw invalidRequest("The request body is not valid JSON.");
  }
}

/**
 * JSON, or an HTML form (`application/x-www-form-urlencoded`: provider callbacks such as Twilio's)
 * as an object of its fields (a repeated field becomes a list).
 */
function parseBody(raw: string, contentType: string | null): unknown {
  if (!contentType?.toLowerCase().startsWith("application/x-www-form-urlencoded")) return parseJson(raw);
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/** What the request log needs from `serve`: filled in as the request proceeds. */
interface Trace {
  actor: Actor | null;
  ip: string | null;
  requestBody: unknown;
  responseBody: unknown;
}

async function serve(routes: RouteTable, request: Request, requestId: string, trace: Trace): Promise<Response> {
  const url = new URL(request.url);
  const method = request.method.toUpperCase() as Method;
  const found = routes.match(pathSegments(url.pathname));
  if (!found) throw new ApiError("resource_not_found", `No operation ${method} ${url.pathname}.`);
  const op: AnyOperation | undefined = found.entry.byMethod.get(method);
  if (!op) {
    const allow = found.entry.allow;
    throw new ApiError("method_not_allowed", `${method} is not allowed here; use ${allow}.`).withHeaders({
      Allow: allow,
    });
  }
  refuseKeyInQuery(url);
  const ip = readClientIp(request.headers);
  trace.ip = ip;
  const { actor, headers } = await actorFor(op, request, url, ip, requestId);
  trace.actor = actor;
  authorize(op, actor);
  const hasBody = method !== "GET" && method !== "DELETE";
  const rawBody = hasBody ? await readBody(request, op.contract.maxBodyBytes ?? env.MAX_BODY_BYTES) : "";
  // The text as received until it parses: a malformed body is logged as the text it was refused for.
  trace.requestBody = rawBody || undefined;
  const body = hasBody ? parseBody(rawBody, request.headers.get("content-type")) : undefined;
  trace.requestBody = body;
  try {
    const result = await invoke(
      op,
      actor,
      { params: found.params, query: queryObject(url), body },
      {
        requestId,
        ip,
        idempotencyKey: request.headers.get("idempotency-key"),
        signal: request.signal,
        request: { headers: request.headers, origin: url.origin, url: url.href, body: rawBody },
      },
    );
    trace.responseBody = result.data instanceof BinaryBody || result.data instanceof RawReply ? null : result.data;
    return respond(result.status, result.data, {
      ...headers,
      ...(result.replayed ? { "Idempotent-Replayed": "true" } : {}),
    });
  } catch (err) {
    if (err instanceof ApiError) err.withHeaders({ ...headers, ...err.headers });
    throw err;
  }
}

export type Dispatch = (request: Request) => Promise<Response>;

/** A dispatcher over `operations` (the app's: the registry's HTTP operations; tests: their own). */
export function createDispatcher(operations: readonly AnyOperation[]): Dispatch {
  let routes: RouteTable | undefined;
  return async (request) => {
    routes ??= compileRoutes(operations);
    const requestId = newRequestId();
    const startedAt = performance.now();
    const trace: Trace = { actor: null, ip: null, requestBody: undefined, responseBody: undefined };
    let response: Response;
    let errorCode: string | null = null;
    try {
      response = await serve(routes, request, requestId, trace);
    } catch (err) {
      if (err instanceof ApiError) {
        response = errorResponse(err);
        errorCode = err.code;
        trace.responseBody = err.toBody();
      } else {
        log.error("unhandled error", {
          requestId,
          method: request.method,
          path: URL.canParse(request.url) ? new URL(request.url).pathname : null,
          ...errorFields(err),
        });
        const internal = new ApiError("internal_error", `An unexpected error occurred. Reference: ${requestId}.`);
        response = errorResponse(internal);
        errorCode = internal.code;
        trace.responseBody = internal.toBody();
      }
    }
    response.headers.set(REQUEST_ID_HEADER, requestId);
    if (trace.actor)
      recordRequest({
        source: "api",
        actor: trace.actor,
        method: request.method.toUpperCase(),
        url: new URL(request.url),
        status: response.status,
        errorCode,
        startedAt,
        requestId,
        ip: trace.ip,
        requestBody: trace.requestBody,
        responseBody: trace.responseBody,
      });
    return response;
  };
}
