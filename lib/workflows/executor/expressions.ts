import { parse } from "@marcbachmann/cel-js";

type Compiled = ReturnType<typeof parse>;
const cache = new Map<string, Compiled>();

/**
 * Evaluates an Inngest expression (CEL) — trigger `expression`, `cancelOn`/`waitForEvent` `if`,
 * concurrency and idempotency keys — with a real CEL implementation. A missing field or type error
 * makes a condition false and a key null, as in Inngest.
 */
export function evaluate(expression: string, context: Record<string, unknown>): unknown {
  let compiled = cache.get(expression);
  if (!compiled) {
    compiled = parse(expression);
    if (cache.size > 1000) cache.clear();
    cache.set(expression, compiled);
  }
  try {
    return compiled(context);
  } catch {
    return undefined;
  }
}

export function matches(expression: string | null | undefined, context: Record<string, unknown>): boolean {
  if (!expression) return true;
  return evaluate(expression, context) === true;
}

/** A key expression's value as a string (null when it does not evaluate). */
export function keyOf(expression: string | null | undefined, context: Record<string, unknown>): string | null {
  if (!expression) return null;
  const value = evaluate(expression, context);
  if (value === undefined || value === null) return null;
  return typeof value === "string"
    ? value
    : JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
}
