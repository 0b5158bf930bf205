import type { z } from "zod";
import { type ApiError, invalidRequest } from "./errors";

/**
 * The one place zod issues become errors, for every surface: the API's 400 `invalid_request`
 * (`param` names the field: `to[1]`, `preferences.spam`, `headers.X-Foo`), the console's field
 * errors (keyed by the same names) and the CLI's messages; plus plain sentences for forms.
 */

type Issue = z.core.$ZodIssue;

/** `["to", 1, "address"]` → `to[1].address`. */
export function formatPath(path: readonly PropertyKey[], prefix: string | null = null): string | null {
  let out = prefix ?? "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || null;
}

/** The parameter an issue is about (`colour` for an unknown field `colour`). */
export function issueParam(issue: Issue, prefix: string | null = null): string | null {
  if (issue.code === "unrecognized_keys") return formatPath([...issue.path, issue.keys[0] ?? ""], prefix);
  return formatPath(issue.path, prefix);
}

/** One zod issue as a 400 `invalid_request` whose `param` names the offending field. */
export function issueToError(issue: Issue | undefined, prefix: string | null = null): ApiError {
  if (!issue) return invalidRequest("The request is not valid.", prefix);
  const param = issueParam(issue, prefix);
  if (issue.code === "unrecognized_keys") return invalidRequest(`Unknown field "${param}".`, param);
  if (issue.code === "invalid_type" && issue.input === undefined) {
    return invalidRequest(`Missing required field "${param}".`, param);
  }
  return invalidRequest(param ? `Invalid value for "${param}": ${issue.message}` : issue.message, param);
}

/** Parses `value` with `schema` or throws the first issue as a 400 (reportInput: the "missing" wording needs it). */
export function parseOrThrow<T extends z.ZodType>(
  schema: T,
  value: unknown,
  prefix: string | null = null,
): z.output<T> {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (!parsed.success) {
    const err = issueToError(parsed.error.issues[0], prefix);
    err.fields = fieldErrors(parsed.error.issues, prefix);
    err.issues = parsed.error.issues.map(withoutInput);
    throw err;
  }
  return parsed.data;
}

/** Every field's first message, keyed like `param` (`to[1]`, `allowedIps[0]`); `_` for the whole input. */
export function fieldErrors(issues: readonly Issue[], prefix: string | null = null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const key = issueParam(issue, prefix) ?? "_";
    out[key] ??= issue.message;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sentences for forms: "Enter a name", "Use 80 characters or fewer", "Pick at least one scope".

/** What a field is called in a sentence: `"name"`, or singular and plural for lists. */
export type FieldLabel = string | { one: string; many?: string };

const A_WORDS = /^(u[rsn][^aeiou]|uu|eu|one|uni|use)/i; // "a URL", "a user", "a UUID", "a unique…"
const AN_WORDS = /^(hour|honest|[aeiou])/i;

function withArticle(noun: string): string {
  return `${AN_WORDS.test(noun) && !A_WORDS.test(noun) ? "an" : "a"} ${noun}`;
}

function labels(label: FieldLabel): { one: string; many: string } {
  if (typeof label !== "string") return { one: label.one, many: label.many ?? `${label.one}s` };
  // A plain label may be plural ("scopes"); its singular is a good guess for "at least one …".
  const one = /[^s]s$/.test(label) ? label.slice(0, -1) : label;
  return { one, many: one === label ? `${label}s` : label };
}

const count = (n: number | bigint, one: string, many: string) => `${n} ${Number(n) === 1 ? one : many}`;

const FORMAT_NOUNS: Record<string, string> = {
  email: "a valid email address",
  url: "a valid URL",
  uuid: "a valid id",
  guid: "a valid id",
  datetime: "a valid date and time (ISO 8601)",
  date: "a valid date",
  time: "a valid time",
  ipv4: "a valid IPv4 address",
  ipv6: "a valid IPv6 address",
  cidrv4: "a valid IPv4 range",
  cidrv6: "a valid IPv6 range",
};

/**
 * A zod issue as a sentence a person can act on, for the field called `fieldLabel`. Messages a
 * schema wrote itself (`refine`, custom checks) are kept as they are.
 */
export function humanMessage(issue: Issue, fieldLabel: FieldLabel): string {
  const { one, many } = labels(fieldLabel);
  switch (issue.code) {
    case "invalid_type": {
      if (issue.input === undefined || issue.input === null)
        return issue.expected === "array" ? `Pick at least one ${one}` : `Enter ${withArticle(one)}`;
      if (issue.expected === "number" || issue.expected === "int" || issue.expected === "bigint")
        return `Enter a number for ${one}`;
      if (issue.expected === "boolean") return `Choose yes or no for ${one}`;
      if (issue.expected === "array") return `Pick one or more ${many}`;
      return `Enter ${withArticle(`valid ${one}`)}`;
    }
    case "too_small": {
      const min = issue.minimum;
      if (issue.origin === "string")
        return Number(min) <= 1 ? `Enter ${withArticle(one)}` : `Use at least ${count(min, "character", "characters")}`;
      if (issue.origin === "array" || issue.origin === "set")
        return Number(min) <= 1 ? `Pick at least one ${one}` : `Pick at least ${min} ${many}`;
      if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint")
        return issue.inclusive === false ? `Use a number above ${min}` : `Use ${min} or more`;
      if (issue.origin === "date") return `Use a date on or after ${String(min)}`;
      return `Enter ${withArticle(one)}`;
    }
    case "too_big": {
      const max = issue.maximum;
      if (issue.origin === "string") return `Use ${count(max, "character", "characters")} or fewer`;
      if (issue.origin === "array" || issue.origin === "set") return `Pick at most ${count(max, one, many)}`;
      if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint")
        return issue.inclusive === false ? `Use a number below ${max}` : `Use ${max} or less`;
      if (issue.origin === "file") return "Choose a smaller file";
      return `Shorten the ${one}`;
    }
    case "invalid_format": {
      const noun = FORMAT_NOUNS[issue.format];
      if (noun) return `Enter ${noun}`;
      if (
        issue.format === "starts_with" ||
        issue.format === "ends_with" ||
        issue.format === "includes" ||
        issue.format === "regex"
      )
        return `Check the format of the ${one}`;
      return `Enter ${withArticle(`valid ${one}`)}`;
    }
    case "invalid_value":
      return issue.values.length === 1
        ? `Use ${JSON.stringify(issue.values[0])} for the ${one}`
        : `Pick one of the allowed ${many}`;
    case "unrecognized_keys":
      return `Remove the unknown field ${issue.keys.map((k) => `“${k}”`).join(", ")}`;
    case "not_multiple_of":
      return `Use a multiple of ${String(issue.divisor)}`;
    case "invalid_union":
      return `Enter ${withArticle(`valid ${one}`)}`;
    case "invalid_key":
    case "invalid_element":
      return `Check the entries of the ${one}`;
    case "custom":
      return issue.message;
  }
}

/** An issue without the offending value (it may be a password); `input` kept only as missing or not. */
export function withoutInput(issue: Issue): Issue {
  if (!("input" in issue)) return issue;
  const { input, ...rest } = issue;
  return { ...rest, input: input === undefined || input === null ? input : "[value]" } as Issue;
}

/** Words for field names that are not plain English once split (`url` → URL, `to` → recipient). */
const FIELD_WORDS: Record<string, FieldLabel> = {
  url: "URL",
  email: "email address",
  to: { one: "recipient" },
  cc: { one: "Cc recipient" },
  bcc: { one: "Bcc recipient" },
  text: "message",
  allowedIps: { one: "IP address or range", many: "IP addresses or ranges" },
  inboxIds: { one: "inbox" },
  events: { one: "event type" },
  scopes: { one: "scope" },
};

/** The words for a field key (`allowedIps[1]` → "IP address or range", `displayName` → "display name"). */
export function fieldLabelOf(key: string): FieldLabel {
  const name =
    key
      .replace(/\[\d+\]/g, "")
      .split(".")
      .pop() ?? key;
  return (
    FIELD_WORDS[name] ??
    (name
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replace(/\bIds?\b/g, (m) => m.toLowerCase())
      .toLowerCase() ||
      "value")
  );
}

/** zod's own wording (en locale), which forms replace; a message a schema wrote itself is kept. */
const ZOD_DEFAULT = /^(Invalid\b|Too (small|big)\b|Unrecognized key)/;

/**
 * Every field's first problem as a sentence for forms ("Enter a name", "Use 80 characters or
 * fewer", "Pick at least one scope"), keyed like `param`; `labels` names fields a form calls
 * something else (`{ name: "domain name" }`).
 */
export function humanFieldErrors(
  issues: readonly Issue[],
  labels: Record<string, FieldLabel> = {},
  prefix: string | null = null,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const key = issueParam(issue, prefix) ?? "_";
    const name = key.replace(/\[\d+\]/g, "");
    out[key] ??=
      ZOD_DEFAULT.test(issue.message) || issue.code === "unrecognized_keys"
        ? humanMessage(issue, labels[name] ?? fieldLabelOf(key))
        : issue.message;
  }
  return out;
}
