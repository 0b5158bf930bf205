import type { z } from "zod";
import { ApiError, type ErrorOverride } from "@/lib/core/errors";
import { type FieldLabel, humanFieldErrors } from "@/lib/core/issues";
import type { AnyOperation, OperationOutput } from "@/lib/core/operation";
import { errorFields, log } from "@/lib/log";
import { type ConsoleContext, getConsole, requireUser, type SignedInUser } from "./context";
import { ORG_FIELD } from "./org-field";
import { invoke, newRequestId } from "@/lib/core/invoke";
import { recordRequest } from "@/lib/request-logs/recorder";
import { pageBaseUrl } from "./base-url";

/**
 * The console adapter of the operation core: a server action names an operation and passes the
 * form's values; `runAction` resolves the signed-in user and organization, refuses a page of
 * another organization, splits the values into path parameters and body, and calls `invoke` with
 * the user actor (access, parsing, audit and errors are the API's own). Field errors come back
 * keyed like the API's `param` (`name`, `allowedIps[1]`), from `lib/core/issues.ts`.
 */
export type ActionResult<T = null> =
  | { ok: true; data: T }
  | {
      ok: false;
      error: {
        code: string;
        message: string;
        param: string | null;
        fields: Record<string, string>;
        override?: ErrorOverride;
        /** The request log entry this failure was recorded as (`/logs/<id>`), for a role that may read the log. */
        logId?: string;
      };
    };

/** Field names a form calls something else than their key says (`{ name: "domain name" }`). */
export type FieldLabels = Record<string, FieldLabel>;

/** Validation issues as an action error: every field's problem as a sentence (lib/core/issues.ts), the first as the message. */
function invalidResult(
  issues: readonly z.core.$ZodIssue[],
  labels: FieldLabels,
  code: string,
  param: string | null,
): ActionResult<never> {
  const fields = humanFieldErrors(issues, labels);
  const first = Object.keys(fields)[0] ?? null;
  return {
    ok: false,
    error: {
      code,
      message: (first && fields[first]) || "Check the form.",
      param: param ?? (first === "_" ? null : first),
      fields,
    },
  };
}

/** A failed zod parse (a form's own schema) as an action error. */
export function invalidInput(error: z.ZodError, labels: FieldLabels = {}): ActionResult<never> {
  return invalidResult(error.issues, labels, "invalid_request", null);
}

/** Turns any thrown error into the action's error result (unknown errors are logged, never shown, under `reference`). */
export function actionError(
  err: unknown,
  labels: FieldLabels = {},
  reference = `act_${Date.now().toString(36)}`,
): ActionResult<never> {
  if (err instanceof ApiError) {
    // A validation failure reads as sentences on the form ("Enter a name", "Pick at least one scope").
    if (err.issues && err.issues.length > 0) return invalidResult(err.issues, labels, err.code, err.param);
    const fields = err.fields ?? (err.param ? { [err.param]: err.message } : {});
    return {
      ok: false,
      error: {
        code: err.code,
        message: err.message,
        param: err.param,
        fields,
        ...(err.override ? { override: err.override } : {}),
      },
    };
  }
  log.error("console action failed", { reference, ...errorFields(err) });
  return {
    ok: false,
    error: {
      code: "internal_error",
      message: `Something went wrong. Reference: ${reference}.`,
      param: null,
      fields: {},
    },
  };
}

/** redirect() and notFound() signal through exceptions Next must see. */
export function isNextSignal(err: unknown): boolean {
  return Boolean(
    err &&
      typeof err === "object" &&
      "digest" in err &&
      typeof err.digest === "string" &&
      err.digest.startsWith("NEXT_"),
  );
}

/** Splits the page's organization (added by the client's `useAction`) from the action's input. */
function untag(input: unknown): { value: unknown; org: string | null } {
  if (!input || typeof input !== "object" || Array.isArray(input) || !(ORG_FIELD in input))
    return { value: input, org: null };
  const { [ORG_FIELD]: org, ...value } = input as Record<string, unknown>;
  return { value, org: typeof org === "string" ? org : null };
}

/**
 * Flat form values → the operation's input: the contract's path parameters are taken out by name
 * (`orgId` defaults to the console's organization), the rest is the body (or the query of a read).
 */
export function splitInput(
  op: AnyOperation,
  value: unknown,
  orgId: string | null,
): { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown } {
  const c = op.contract;
  const names = c.params ? Object.keys(c.params.shape) : [];
  const rest: Record<string, unknown> =
    value && typeof value === "object" && !Array.isArray(value) ? { ...(value as Record<string, unknown>) } : {};
  const params: Record<string, unknown> = {};
  for (const name of names) {
    if (name in rest) {
      params[name] = rest[name];
      delete rest[name];
    } else if (name === "orgId" && orgId) params[name] = orgId;
  }
  if (c.body) return { params, body: rest };
  if (c.query) return { params, query: rest };
  return { params, body: Object.keys(rest).length > 0 ? rest : undefined };
}

/** The operation's `/v1` path with the action's path parameters filled in (what the API call would have been). */
export function operationPath(op: AnyOperation, params: Record<string, unknown> | undefined): string {
  return op.contract.path.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const v = params?.[name];
    return typeof v === "string" || typeof v === "number" ? encodeURIComponent(String(v)) : whole;
  });
}

/**
 * Records a console action that failed in the request log, as the API call it stands for: the
 * operation's method and `/v1` path, the signed-in user as actor, the form's values as the request
 * body and the error envelope as the response (redacted and capped by the recorder like any
 * request). The entry's id, so the form's error can link to it; null when not recorded.
 */
function recordFailure(
  op: AnyOperation,
  ctx: ConsoleContext,
  split: ReturnType<typeof splitInput>,
  err: unknown,
  startedAt: number,
  requestId: string,
): string | null {
  const failure =
    err instanceof ApiError
      ? err
      : new ApiError("internal_error", `An unexpected error occurred. Reference: ${requestId}.`);
  const url = new URL(operationPath(op, split.params), "http://console.invalid");
  for (const [k, v] of Object.entries(split.query ?? {}))
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") url.searchParams.set(k, String(v));
  return recordRequest({
    source: "console",
    actor: ctx.actor,
    method: op.contract.method,
    url,
    status: failure.status,
    errorCode: failure.code,
    startedAt,
    requestId,
    ip: ctx.actor.ip,
    requestBody: split.body,
    responseBody: failure.toBody(),
  });
}

interface RunOptions<T, R> {
  /** Session operations that need no organization (create one, accept an invitation, password). */
  withoutOrganization?: boolean;
  /** Words for fields whose key is not what the form calls them (errors read "Enter a domain name"). */
  labels?: FieldLabels;
  /** Reshapes the operation's data for the form. */
  then?: (data: T, ctx: ConsoleContext | SignedInUser) => Promise<R> | R;
  /**
   * Passes the page's origin as the request's (what the API's handler gets from an HTTP request):
   * an operation that registers this service's address with a provider (a Telegram webhook) uses
   * it when PUBLIC_BASE_URL is unset.
   */
  withOrigin?: boolean;
}

/** Runs `op` as the signed-in console user with the form's values. */
export async function runAction<O extends AnyOperation, R = OperationOutput<O>>(
  op: O,
  input: unknown,
  options: RunOptions<OperationOutput<O>, R> = {},
): Promise<ActionResult<R>> {
  try {
    const { value, org } = untag(input);
    let ctx: ConsoleContext | SignedInUser;
    let orgId: string | null = null;
    if (options.withoutOrganization) ctx = await requireUser();
    else {
      const console = await getConsole();
      if (org !== null && org !== console.org.id) {
        return {
          ok: false,
          error: {
            code: "conflict",
            message: "You switched organization in another tab; reload this page before making changes.",
            param: null,
            fields: {},
          },
        };
      }
      ctx = console;
      orgId = console.org.id;
    }
    const split = splitInput(op, value, orgId);
    const startedAt = performance.now();
    let data: OperationOutput<O>;
    try {
      data = options.withOrigin
        ? (
            await invoke(op, ctx.actor, split as never, {
              request: { headers: new Headers(), origin: await pageBaseUrl(), url: await pageBaseUrl(), body: "" },
            })
          ).data
        : await ctx.invoke(op, split as never);
    } catch (err) {
      if (isNextSignal(err) || !("org" in ctx)) throw err;
      // A failed form in an organization is in the request log like a failed API call, and its error links there.
      const requestId = newRequestId();
      const logId = recordFailure(op, ctx, split, err, startedAt, requestId);
      const result = actionError(err, options.labels, requestId);
      if (!result.ok && logId && ctx.can("account:read")) result.error.logId = logId;
      return result;
    }
    return { ok: true, data: options.then ? await options.then(data, ctx) : (data as unknown as R) };
  } catch (err) {
    if (isNextSignal(err)) throw err;
    return actionError(err, options.labels);
  }
}
