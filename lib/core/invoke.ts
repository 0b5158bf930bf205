import { pooledRandomBytes } from "@/db/ids";
import { type Db, getDb } from "@/db";
import type { Principal } from "@/lib/auth/principal";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { type Actor, auditActorOf, principalOf, sessionCallerOf } from "./actor";
import { withAuditScope, recordAudit } from "./audit";
import { noteOrgChange } from "./changes";
import { BinaryBody, RawReply } from "./contract";
import { ApiError, apiErrorFromBody, invalidRequest, notFound } from "./errors";
import { claimIdempotencyKey, completeIdempotencyKey, IDEMPOTENCY_KEY_MAX, requestFingerprint } from "./idempotency";
import { formatPath, parseOrThrow } from "./issues";
import type { AnyOperation, HandlerContext, OperationOutput } from "./operation";

/**
 * `invoke(operation, actor, input)`: the one transport-free path every surface takes into an
 * operation. In order: access (the actor's kind, then its scopes), text that is not well-formed
 * anywhere in the input (a NUL byte, a lone surrogate; 400 naming the field), nesting deeper than
 * MAX_INPUT_DEPTH (400), path parameters (a malformed id is 404), query and body with the
 * contract's strict schemas (400 naming the field), the Idempotency-Key claim or replay, the
 * handler inside an audit scope, the response schema, the audit check, the stored outcome.
 * `ApiError`s pass through for the adapter to render; anything else is a bug (a 500 to log).
 */

export interface InvokeInput {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  /** The parsed JSON body, or undefined when there was none. */
  body?: unknown;
}

export interface InvokeOptions {
  requestId?: string;
  ip?: string | null;
  /** The Idempotency-Key the adapter received (a header); the contract's body field is the fallback. */
  idempotencyKey?: string | null;
  signal?: AbortSignal;
  /** HTTP only: the request's headers, origin and raw body (provider callbacks verify their signatures with them). */
  request?: { headers: Headers; origin: string; url: string; body: string } | null;
  /** The database handle (defaults to the process's). */
  db?: Db;
}

export interface InvokeResult<T = unknown> {
  status: number;
  data: T;
  /** A stored outcome answered again for a repeated Idempotency-Key. */
  replayed: boolean;
}

/** A request id: 12 random bytes from the pool ids draw from (`pooledRandomBytes`), base64url. */
export function newRequestId(): string {
  return `req_${pooledRandomBytes(12).toString("base64url")}`;
}

/** Whether `actor` may call `op` at all (its kind and scopes); throws the 401/403 it deserves. */
export function authorize(op: AnyOperation, actor: Actor): void {
  const access = op.contract.access;
  if (access === "public") return;
  if (access === "session") {
    if (actor.type !== "user")
      throw new ApiError("session_required", "Sign in to the console; this operation takes a session, not an API key.");
    return;
  }
  const principal = principalOf(actor);
  if (!principal) {
    if (actor.type === "user")
      throw new ApiError("not_permitted", "Choose an organization first; this operation acts in one.");
    throw new ApiError("missing_api_key", "No API key: send it as `Authorization: Bearer <key>`.");
  }
  if (access === "key" || principal.scopes.has(access)) return;
  const message =
    actor.type === "user"
      ? `Your role (${actor.org?.role ?? "none"}) does not include the "${access}" permission this needs.`
      : `This API key lacks the "${access}" scope this operation requires.`;
  throw new ApiError("scope_missing", message);
}

/** How deep a request's JSON may nest: deeper input is a 400, before anything walks it recursively. */
export const MAX_INPUT_DEPTH = 32;

/** Why a string is refused as text: a NUL byte, or not well-formed Unicode (a lone UTF-16 surrogate). */
export type TextFault = "nul" | "surrogate";

export function textFault(s: string): TextFault | null {
  if (s.includes("\u0000")) return "nul";
  return s.isWellFormed() ? null : "surrogate";
}

/**
 * The first string (or object key) that is not acceptable text (`textFault`), as a `param` path
 * and the fault; null when there is none. Iterative, so hostile nesting cannot overflow the stack;
 * past MAX_INPUT_DEPTH it answers the path where the nesting went too deep, with `tooDeep`.
 */
export function findBadText(
  value: unknown,
  path: PropertyKey[] = [],
): { path: PropertyKey[]; tooDeep: boolean; fault: TextFault | null } | null {
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value, path }];
  while (stack.length) {
    const { value: v, path: p } = stack.pop() as { value: unknown; path: PropertyKey[] };
    if (typeof v === "string") {
      const fault = textFault(v);
      if (fault) return { path: p, tooDeep: false, fault };
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (p.length - path.length >= MAX_INPUT_DEPTH) return { path: p, tooDeep: true, fault: null };
    const entries: [PropertyKey, unknown][] = Array.isArray(v) ? v.map((item, i) => [i, item]) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, child] = entries[i] as [PropertyKey, unknown];
      const fault = typeof k === "string" ? textFault(k) : null;
      if (fault) return { path: [...p, k], tooDeep: false, fault };
      stack.push({ value: child, path: [...p, k] });
    }
  }
  return null;
}

/**
 * Refuses input that is not text the services can take: a NUL byte or a lone surrogate in any
 * path parameter, query value or body string (or key), or nesting deeper than MAX_INPUT_DEPTH —
 * 400 `invalid_request` naming the field, before any service sees it (a lone surrogate used to
 * reach `encodeURIComponent` and answer 500).
 */
export function refuseBadText(input: InvokeInput): void {
  for (const part of [input.params, input.query, input.body]) {
    const found = findBadText(part);
    if (!found) continue;
    // A key holding a lone surrogate is named with U+FFFD in its place, so the envelope stays valid text.
    const param = (formatPath(found.path) ?? "body").toWellFormed();
    if (found.tooDeep)
      throw invalidRequest(
        `"${param}" is nested more than ${MAX_INPUT_DEPTH} levels deep, which no field accepts.`,
        param,
      );
    throw found.fault === "nul"
      ? invalidRequest(`"${param}" contains a NUL character (\\u0000), which no field accepts.`, param)
      : invalidRequest(
          `"${param}" is not well-formed Unicode text (it holds a lone UTF-16 surrogate), which no field accepts.`,
          param,
        );
  }
}

const isEmptyObject = (v: unknown) =>
  v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0;

function idempotencyKeyOf(op: AnyOperation, input: InvokeInput, given: string | null | undefined): string | null {
  const field = op.contract.idempotencyKeyField;
  const fromBody =
    field && input.body && typeof input.body === "object" ? (input.body as Record<string, unknown>)[field] : undefined;
  const key = given ?? (typeof fromBody === "string" ? fromBody : null);
  if (key === null) return null;
  if (key.length < 1 || key.length > IDEMPOTENCY_KEY_MAX || !/^[\x21-\x7e]+$/.test(key)) {
    throw invalidRequest(
      `Idempotency-Key must be 1..${IDEMPOTENCY_KEY_MAX} printable ASCII characters.`,
      "Idempotency-Key",
    );
  }
  return key;
}

/** Parses the input with the contract: path parameters (404 when malformed), query and body (400). */
function parseInput(op: AnyOperation, input: InvokeInput) {
  const c = op.contract;
  let params: unknown;
  if (c.params) {
    const parsed = c.params.safeParse(input.params ?? {});
    if (!parsed.success) throw notFound("resource", String(parsed.error.issues[0]?.path[0] ?? "") || null);
    params = parsed.data;
  }
  let query: unknown;
  if (c.query) query = parseOrThrow(c.query, input.query ?? {});
  else {
    const unknown = Object.keys(input.query ?? {})[0];
    if (unknown !== undefined) throw invalidRequest(`Unknown query parameter "${unknown}".`, unknown);
  }
  let body: unknown;
  if (c.body) body = parseOrThrow(c.body, input.body ?? {});
  else if (input.body !== undefined && input.body !== null && !isEmptyObject(input.body))
    throw invalidRequest("This operation takes no request body.");
  return { params, query, body };
}

function checkAudit(op: AnyOperation, recorded: number, unchanged: string | null, requestId: string): void {
  if (op.contract.method === "GET" || op.audit !== "required" || recorded > 0 || unchanged !== null) return;
  const problem = `${op.id} changed something without an audit row (record one with recordAudit, call noAuditNeeded, or declare audit: { none })`;
  if (env.NODE_ENV === "production") log.error("operation without audit row", { requestId, operation: op.id });
  else throw new Error(problem);
}

/** The response as an Idempotency-Key record keeps it: the contract's secret fields left out. */
function withoutSecrets(fields: readonly string[] | undefined, data: unknown): unknown {
  if (
    !fields?.length ||
    data === null ||
    typeof data !== "object" ||
    data instanceof BinaryBody ||
    data instanceof RawReply
  )
    return data;
  return Object.fromEntries(Object.entries(data).filter(([k]) => !fields.includes(k)));
}

/**
 * A replay of a response that carried a secret shown once: the secret was never stored, so the
 * replay is refused (409 `idempotency_key_replay_secret`) and names what the first request made.
 */
function secretReplayRefused(stored: unknown): ApiError {
  const made = Object.entries(stored !== null && typeof stored === "object" ? stored : {})
    .map(([name, v]) =>
      v !== null && typeof v === "object" && typeof (v as { id?: unknown }).id === "string"
        ? `${name} ${(v as { id: string }).id}`
        : null,
    )
    .filter((x) => x !== null);
  const what = made.length > 0 ? ` (it made ${made.join(", ")})` : "";
  const err = new ApiError(
    "idempotency_key_replay_secret",
    `The request with this Idempotency-Key already succeeded${what}, and its response carried a secret that is shown only once and never stored. If the secret was lost, revoke or rotate what was made and try again with a new key.`,
    "Idempotency-Key",
  );
  err.replayed = true;
  return err;
}

export async function invoke<O extends AnyOperation, T = OperationOutput<O>>(
  op: O,
  actor: Actor,
  input: InvokeInput = {},
  options: InvokeOptions = {},
): Promise<InvokeResult<T>> {
  const requestId = options.requestId ?? newRequestId();
  const contract = op.contract;
  authorize(op, actor);
  refuseBadText(input);
  const { params, query, body } = parseInput(op, input);

  const who = auditActorOf(actor);
  // Services write audit rows with the principal's actor: an MCP client or an agent acting with a
  // key is recorded as itself (`mcp:<keyId>`, `agent:agt_…`), not as the bare key.
  const keyPrincipal = principalOf(actor);
  const principal: Principal | null =
    keyPrincipal && (actor.type === "mcp" || actor.type === "agent")
      ? { ...keyPrincipal, actor: who.actor }
      : keyPrincipal;
  const ip = options.ip ?? principal?.ip ?? (actor.type === "user" || actor.type === "anonymous" ? actor.ip : null);

  const key = contract.idempotent && principal ? idempotencyKeyOf(op, input, options.idempotencyKey) : null;

  const execute = async (): Promise<{ status: number; data: unknown }> => {
    const db = options.db ?? (await getDb());
    const ctx: HandlerContext<typeof contract> = {
      db,
      actor,
      principal: contract.access === "session" && actor.type === "user" ? sessionCallerOf(actor) : principal,
      params,
      query,
      body,
      requestId,
      ip,
      signal: options.signal,
      request: options.request ?? null,
      idempotencyKey: key,
      audit: (tx, entry) => {
        const orgId = entry.orgId ?? principal?.orgId;
        if (!orgId) throw new Error(`${op.id}: an audit row needs an organization`);
        return recordAudit(tx, who, { ...entry, orgId }).then(() => undefined);
      },
    } as HandlerContext<typeof contract>;
    const { result, recorded, unchanged } = await withAuditScope(() => op.handler(ctx));
    let data: unknown;
    if (contract.binary && result instanceof BinaryBody) data = result;
    else if (result instanceof RawReply && contract.rawReplies?.includes(result.mediaType)) data = result;
    else {
      const out = contract.response.safeParse(result);
      if (!out.success) {
        log.error("response failed its schema", { requestId, operation: op.id, issues: out.error.issues.slice(0, 5) });
        throw new Error(`Response of ${op.id} does not match its schema`);
      }
      data = out.data;
    }
    checkAudit(op, recorded, unchanged, requestId);
    if (contract.method !== "GET" && principal) noteOrgChange(principal.orgId);
    return { status: contract.successStatus, data };
  };

  if (!key || !principal) {
    const out = await execute();
    return { status: out.status, data: out.data as T, replayed: false };
  }

  const claim = await claimIdempotencyKey(principal.orgId, principal.apiKeyId, key, requestFingerprint(op.id, input));
  if (claim.kind === "replay") {
    const { status, body: stored } = claim.response;
    if (status < 400 && contract.secretFields?.length) throw secretReplayRefused(stored);
    if (status >= 400) {
      const err =
        apiErrorFromBody(stored) ??
        new ApiError("internal_error", "The stored outcome of this Idempotency-Key is not readable.");
      err.replayed = true;
      throw err;
    }
    return { status, data: stored as T, replayed: true };
  }
  let outcome: { status: number; data: unknown };
  try {
    outcome = await execute();
  } catch (err) {
    const status = err instanceof ApiError ? err.status : 500;
    await completeIdempotencyKey(principal.orgId, key, { status, body: err instanceof ApiError ? err.toBody() : null });
    throw err;
  }
  await completeIdempotencyKey(principal.orgId, key, {
    status: outcome.status,
    body: withoutSecrets(contract.secretFields, outcome.data),
  });
  return { status: outcome.status, data: outcome.data as T, replayed: false };
}
