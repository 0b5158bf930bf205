import { TemplateError } from "./errors";

/**
 * A version's subject template: plain text with `{{ name }}` or `{{ order.id }}` placeholders filled
 * from the (validated) variables. No code runs: a placeholder is a dotted path, nothing else. The
 * result is one header line: line breaks and other control characters become spaces, so a variable
 * can never add a header.
 */
export const MAX_SUBJECT_CHARS = 998;
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;

/** Checks a subject template at publish time; returns the variable names it uses (first segment). */
export function parseSubjectTemplate(template: string, param = "subject"): string[] {
  if (template.length > MAX_SUBJECT_CHARS)
    throw new TemplateError("invalid_schema", `${param} is longer than ${MAX_SUBJECT_CHARS} characters`, param);
  const stripped = template.replace(PLACEHOLDER, "");
  if (/\{\{|\}\}/.test(stripped)) {
    throw new TemplateError(
      "invalid_schema",
      `${param} has a malformed placeholder: use {{ name }} or {{ name.field }}`,
      param,
    );
  }
  const names = new Set<string>();
  for (const m of template.matchAll(PLACEHOLDER)) names.add((m[1] ?? "").split(".")[0] ?? "");
  return [...names];
}

function lookup(variables: Record<string, unknown>, path: string): unknown {
  let value: unknown = variables;
  for (const key of path.split(".")) {
    if (value === null || typeof value !== "object" || !Object.prototype.hasOwnProperty.call(value, key))
      return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function text(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** Fills a subject template. */
export function renderSubject(template: string, variables: Record<string, unknown>): string {
  const filled = template.replace(PLACEHOLDER, (_, path: string) => text(lookup(variables, path)));
  // eslint-disable-next-line no-control-regex
  const oneLine = filled.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ").trim();
  return oneLine.length > MAX_SUBJECT_CHARS ? oneLine.slice(0, MAX_SUBJECT_CHARS) : oneLine;
}
