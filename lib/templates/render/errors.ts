/**
 * Why a template could not be compiled, validated or rendered. Every code is the caller's fault
 * (the HTTP adapter answers 400 `invalid_request` with `param`), except `rate_limited` (the
 * organization is over its share of the renderer: 429 with `Retry-After`) and
 * `sandbox_unavailable`, which means the renderer itself failed (a 500 for the adapter to log).
 */
export type TemplateErrorCode =
  | "source_too_large"
  | "props_too_large"
  | "compile_error"
  | "import_not_allowed"
  | "invalid_export"
  | "render_error"
  | "timeout"
  | "memory_limit"
  | "stack_overflow"
  | "output_too_large"
  | "invalid_schema"
  | "invalid_variables"
  | "rate_limited"
  | "sandbox_unavailable";

export class TemplateError extends Error {
  override readonly name = "TemplateError";
  constructor(
    readonly code: TemplateErrorCode,
    message: string,
    /** The request field at fault, e.g. `template.variables.name` or `react.source`. */
    readonly param: string | null = null,
    /** `rate_limited`: when to try again, seconds. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }

  static rateLimited(message: string, retryAfterSeconds: number): TemplateError {
    return new TemplateError("rate_limited", message, null, retryAfterSeconds);
  }

  /** The same error, reported against another field (callers know what the source was called). */
  withParam(param: string | null): TemplateError {
    return new TemplateError(this.code, this.message, param, this.retryAfterSeconds);
  }

  /** True when the caller sent something wrong (HTTP 400); false when the renderer failed (500). */
  get isClientError(): boolean {
    return this.code !== "sandbox_unavailable";
  }
}
