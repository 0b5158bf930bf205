import { scrubQueryError } from "@/db/errors";
import { env } from "@/lib/env";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;

function emit(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  if (LEVELS[level] < LEVELS[env.LOG_LEVEL]) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
  if (level === "error" || level === "warn") console.error(line);
  else console.log(line);
}

/** Structured JSON logs on stdout/stderr. */
export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => emit("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => emit("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => emit("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => emit("error", msg, fields),
};

/**
 * An error as log fields: message and stack, and for a database error the driver's reason (message,
 * SQLSTATE code, constraint) — never the query's bound values (`db/errors.ts`) nor the driver's
 * `detail`, which quotes them.
 */
export function errorFields(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { err: String(err) };
  scrubQueryError(err);
  const cause =
    err.cause instanceof Error
      ? (err.cause as Error & { code?: unknown; constraint?: unknown; constraint_name?: unknown })
      : null;
  return {
    err: err.message,
    ...(cause ? { cause: cause.message, ...(typeof cause.code === "string" ? { code: cause.code } : {}) } : {}),
    ...(cause && typeof (cause.constraint ?? cause.constraint_name) === "string"
      ? { constraint: cause.constraint ?? cause.constraint_name }
      : {}),
    stack: err.stack,
  };
}
