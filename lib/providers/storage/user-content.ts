import { contentDisposition } from "./types";

/**
 * How user content (attachments, stored files) is served over HTTP, wherever it is served from:
 * downloaded (`Content-Disposition: attachment`) unless the link asked for inline display (and the
 * link's signature covers that) and the type is on a short list browsers only display passively;
 * never sniffed (`X-Content-Type-Options: nosniff`); under a Content-Security-Policy that allows no
 * script, no connection and no framing, with `sandbox` (a unique opaque origin) for everything but
 * inline PDF (Chrome's PDF viewer refuses to open in a sandboxed document; PDF is rendered by the
 * browser's viewer, not as a page of this origin). The route must not get the console's global
 * headers (next.config.ts leaves `/files/` out), so this policy is the one the browser sees.
 */

/** Types shown inline when the signed link asks for it: images that cannot carry script (no SVG), PDF, plain text. */
const INLINE_SAFE = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
  "image/bmp",
  "application/pdf",
  "text/plain",
]);

/** `type/subtype` of a media type, lower-cased; null when it is not a well-formed media type. */
export function mediaTypeEssence(contentType: string | null | undefined): string | null {
  const m = /^\s*([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)\s*(?:;[\x20-\x7e\t]*)?$/i.exec(contentType ?? "");
  return m?.[1]?.toLowerCase() ?? null;
}

export function inlineSafe(contentType: string | null | undefined): boolean {
  const essence = mediaTypeEssence(contentType);
  return essence !== null && INLINE_SAFE.has(essence);
}

const POLICY =
  "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'";

export interface UserContentHeaders {
  disposition: "attachment" | "inline";
  headers: Record<string, string>;
}

/**
 * Response headers for stored bytes: `wantInline` is what the (signed) link asked for; it is honored
 * only for inline-safe types. A malformed stored type is served as `application/octet-stream`; a
 * plain-text file is always labelled UTF-8 unless it names its charset.
 */
export function userContentHeaders(
  contentType: string | null | undefined,
  filename: string | null | undefined,
  wantInline: boolean,
): UserContentHeaders {
  const essence = mediaTypeEssence(contentType);
  const inline = wantInline && inlineSafe(contentType);
  const type =
    essence === null
      ? "application/octet-stream"
      : essence === "text/plain" && !/charset=/i.test(contentType ?? "")
        ? "text/plain; charset=utf-8"
        : (contentType ?? "").trim();
  const disposition = inline ? "inline" : "attachment";
  return {
    disposition,
    headers: {
      "Content-Type": type,
      "Content-Disposition": contentDisposition(disposition, filename),
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": inline && essence === "application/pdf" ? POLICY : `${POLICY}; sandbox`,
      "Referrer-Policy": "no-referrer",
      "X-Frame-Options": "DENY",
      "Cache-Control": "private, no-store",
    },
  };
}
