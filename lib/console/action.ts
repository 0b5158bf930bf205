import type { z } from "zod";
import { ApiError } from "@/lib/api/errors";
import { errorFields, log } from "@/lib/log";
import { type ConsoleContext, getConsole } from "./context";
import { ORG_FIELD } from "./org-field";
import type { Permission } from "./roles";

/**
 * What every console server action returns: data, or the API's error fields plus per-field
 * messages for the form (keys are the zod path, e.g. `to` or `allowedIps.1`).
 */
export type ActionResult<T = null> =
  | { ok: true; data: T }
  | { ok: false; error: { code: string; message: string; param: string | null; fields: Record<string, string> } };

function fieldErrors(issues: readonly z.core.$ZodIssue[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join(".") || "_";
    out[key] ??= issue.message;
  }
  return out;
}

/** A failed zod parse as an action error: the first issue's message and path, every field's message. */
export function invalidInput(error: z.ZodError): ActionResult<never> {
  const first = error.issues[0];
  return { ok: false, error: { code: "invalid_request", message: first?.message ?? "Invalid input.", param: first ? first.path.map(String).join(".") : null, fields: fieldErrors(error.issues) } };
}

/** Splits the page's organization (added by the client's `useAction`) from the action's input. */
function untag(input: unknown): { value: unknown; org: string | null } {
  if (!input || typeof input !== "object" || Array.isArray(input) || !(ORG_FIELD in input)) return { value: input, org: null };
  const { [ORG_FIELD]: org, ...value } = input as Record<string, unknown>;
  return { value, org: typeof org === "string" ? org : null };
}

/** Turns any thrown error into the action's error result (unknown errors are logged, never shown). */
export function actionError(err: unknown): ActionResult<never> {
  if (err instanceof ApiError) {
    return { ok: false, error: { code: err.code, message: err.message, param: err.param, fields: err.param ? { [err.param]: err.message } : {} } };
  }
  const reference = `act_${Date.now().toString(36)}`;
  log.error("console action failed", { reference, ...errorFields(err) });
  return { ok: false, error: { code: "internal_error", message: `Something went wrong. Reference: ${reference}.`, param: null, fields: {} } };
}

/**
 * The one wrapper of console mutations: resolves the signed-in user and organization, checks the
 * role's permission on the server, validates the input with the API's own zod schema (field errors
 * go back to the form), and runs the service. Nothing reaches a service unchecked.
 */
export async function consoleAction<S extends z.ZodType, T>(
  permission: Permission,
  schema: S,
  input: unknown,
  run: (ctx: ConsoleContext, data: z.output<S>) => Promise<T>,
): Promise<ActionResult<T>> {
  try {
    const ctx = await getConsole();
    if (!ctx.can(permission)) {
      return { ok: false, error: { code: "not_permitted", message: `Your role (${ctx.role}) cannot do this.`, param: null, fields: {} } };
    }
    const { value, org } = untag(input);
    if (org !== null && org !== ctx.org.id) {
      return { ok: false, error: { code: "conflict", message: "You switched organization in another tab; reload this page before making changes.", param: null, fields: {} } };
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) return invalidInput(parsed.error);
    return { ok: true, data: await run(ctx, parsed.data) };
  } catch (err) {
    // redirect() and notFound() signal through exceptions Next must see.
    if (err && typeof err === "object" && "digest" in err && typeof err.digest === "string" && err.digest.startsWith("NEXT_")) throw err;
    return actionError(err);
  }
}
