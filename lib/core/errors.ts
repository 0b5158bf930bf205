import type { z } from "zod";
/**
 * The one error family of the API. Every failure leaves as `{error: {type, code, message, param}}`
 * with the status fixed by its code; clients branch on `code`, never on `message`.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, type: "invalid_request_error" },
  invalid_domain: { status: 400, type: "invalid_request_error" },
  idempotency_key_mismatch: { status: 400, type: "invalid_request_error" },
  missing_api_key: { status: 401, type: "authentication_error" },
  invalid_api_key: { status: 401, type: "authentication_error" },
  session_required: { status: 401, type: "authentication_error" },
  /** A provider callback whose signature or secret header is missing or wrong. */
  invalid_signature: { status: 401, type: "authentication_error" },
  scope_missing: { status: 403, type: "permission_error" },
  not_permitted: { status: 403, type: "permission_error" },
  resource_not_found: { status: 404, type: "not_found_error" },
  method_not_allowed: { status: 405, type: "invalid_request_error" },
  idempotency_key_in_use: { status: 409, type: "conflict_error" },
  idempotency_key_replay_secret: { status: 409, type: "conflict_error" },
  conflict: { status: 409, type: "conflict_error" },
  payload_too_large: { status: 413, type: "invalid_request_error" },
  unprocessable: { status: 422, type: "invalid_request_error" },
  rate_limited: { status: 429, type: "rate_limit_error" },
  plan_limit_reached: { status: 429, type: "rate_limit_error" },
  budget_exceeded: { status: 429, type: "rate_limit_error" },
  spend_cap_reached: { status: 429, type: "rate_limit_error" },
  internal_error: { status: 500, type: "api_error" },
  not_implemented: { status: 501, type: "api_error" },
  /** A channel provider's API (Telegram, Slack) could not be reached or answered with a server error. */
  provider_unavailable: { status: 502, type: "api_error" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorBody {
  /** Every field a string, as the spec says: `param` is `""` when no parameter is at fault. */
  error: { type: string; code: ErrorCode; message: string; param: string };
}

export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  /** Extra response headers (Retry-After, Allow, ...). */
  headers: Record<string, string> = {};
  /** A stored outcome answered again for a repeated Idempotency-Key. */
  replayed = false;
  /** Validation failures: every field's first message, keyed like `param` (forms show them; the envelope does not). */
  fields: Record<string, string> | null = null;
  /** The validation issues themselves (values removed), so a surface can word them its own way (lib/core/issues.ts). */
  issues: readonly z.core.$ZodIssue[] | null = null;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = ERROR_CODES[code].status;
    this.type = ERROR_CODES[code].type;
  }

  withHeaders(headers: Record<string, string>): this {
    Object.assign(this.headers, headers);
    return this;
  }

  /**
   * A refusal the caller may override with a request field (`ignoreComplaints`), and what it is
   * about: forms offer the control (the API envelope names the field in its message).
   */
  override: ErrorOverride | null = null;

  withOverride(override: ErrorOverride): this {
    this.override = override;
    return this;
  }

  toBody(): ErrorBody {
    return { error: { type: this.type, code: this.code, message: this.message, param: this.param ?? "" } };
  }
}

/** A refusal's override: the boolean request field that allows it, and the recipients it concerns. */
export interface ErrorOverride {
  field: "ignoreComplaints";
  recipients: string[];
}

/** An error envelope stored under an Idempotency-Key, as the error it was. */
export function apiErrorFromBody(body: unknown): ApiError | null {
  const e = (body as Partial<ErrorBody> | null)?.error;
  if (!e || typeof e.code !== "string" || !(e.code in ERROR_CODES)) return null;
  return new ApiError(e.code, String(e.message), typeof e.param === "string" && e.param !== "" ? e.param : null);
}

export const invalidRequest = (message: string, param: string | null = null) =>
  new ApiError("invalid_request", message, param);

export const notFound = (what: string, param: string | null = null) =>
  new ApiError("resource_not_found", `No such ${what}.`, param);

export const notPermitted = (message: string, param: string | null = null) =>
  new ApiError("not_permitted", message, param);

/**
 * The name of the unique constraint a database error violated (PostgreSQL 23505, through drizzle's
 * wrapper on either driver), or null for any other error. Services turn it into a 409 naming the field.
 */
export function uniqueViolation(err: unknown): string | null {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const { code, constraint } = e as { code?: unknown; constraint?: unknown };
    if (code === "23505") return typeof constraint === "string" ? constraint : "";
  }
  return null;
}
