import { invalidRequest, type ApiError } from "@/lib/core/errors";

/**
 * `/v1/a%20b` → `["v1", "a b"]`. A malformed percent-escape (`%E0%A4%A`) is a 400 naming the
 * segment's position, in the error envelope — never a crash. The dispatcher routes with it, and
 * `server.ts` applies it before Next.js sees the request (whose own router would answer first).
 */
export function pathSegments(pathname: string): string[] {
  const raw = pathname.split("/").slice(1);
  return raw.map((segment, i) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw invalidRequest(`The path is not valid: segment ${i + 1} has a malformed percent-escape.`, "path");
    }
  });
}

/** The 400 a request path deserves when one of its segments does not decode; null when it is fine. */
export function malformedPath(requestTarget: string): ApiError | null {
  const pathname = requestTarget.split(/[?#]/, 1)[0] ?? "";
  try {
    pathSegments(pathname);
    return null;
  } catch (err) {
    return err as ApiError;
  }
}
