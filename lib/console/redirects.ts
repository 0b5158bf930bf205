const BASE = "http://console.invalid";

/**
 * Where to go after signing in: only a same-origin relative path, returned in its serialized
 * (percent-encoded, ASCII-only) form so it is always a valid `Location` header value. Anything else
 * is `/`: absolute and protocol-relative URLs (`//evil`, `/\evil`, `/.//evil` which normalizes to
 * `//evil`), arrays from repeated query values, non-strings, control characters (`\0`, `\v`, `\f`,
 * CR/LF/TAB) and any raw non-ASCII character (U+3002 that some parsers read as a dot, bidi overrides
 * like U+202E, invisible format characters). Percent-encoded paths are accepted as they are.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== "string" || next.length === 0 || next.length > 2048) return "/";
  if (!next.startsWith("/") || next.startsWith("//") || next.includes("\\")) return "/";
  if (/[^\x21-\x7e]/.test(next)) return "/";
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return "/";
  }
  if (url.origin !== BASE) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  return path.startsWith("/") && !path.startsWith("//") ? path : "/";
}
