/**
 * Where to go after signing in: only a path on this site. Rejects absolute and protocol-relative
 * URLs (`//evil`, `/\evil`), arrays from repeated query values, and anything that is not a string.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== "string" || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\") || /[\r\n\t]/.test(next)) return "/";
  return next;
}
