import type { z } from "zod";
import { type ApiError, invalidRequest } from "./errors";

/** `["to", 1, "address"]` → `to[1].address`. */
export function formatPath(path: readonly PropertyKey[], prefix: string | null = null): string | null {
  let out = prefix ?? "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || null;
}

/** One zod issue as a 400 `invalid_request` whose `param` names the offending field. */
export function zodIssueToError(issue: z.core.$ZodIssue | undefined, prefix: string | null = null): ApiError {
  if (!issue) return invalidRequest("The request is not valid.", prefix);
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    const param = formatPath([...issue.path, key], prefix);
    return invalidRequest(`Unknown field "${param}".`, param);
  }
  const param = formatPath(issue.path, prefix);
  if (issue.code === "invalid_type" && issue.input === undefined) {
    return invalidRequest(`Missing required field "${param}".`, param);
  }
  return invalidRequest(param ? `Invalid value for "${param}": ${issue.message}` : issue.message, param);
}
