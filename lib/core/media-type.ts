import { z } from "zod";

/**
 * Media types (`text/plain; charset=utf-8`) as callers may give them: RFC 6838 type and subtype
 * names (restricted-name: a letter or digit, then up to 126 of `A-Za-z0-9!#$&-^_.+`) and RFC 9110
 * parameters (`; token=token` or `; token="quoted string"`), ASCII only. Anything else — line
 * breaks above all, which would otherwise reach response headers — is refused at the edge.
 */
const NAME = "[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}";
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t \\x21\\x23-\\x5B\\x5D-\\x7E]|\\\\[\\t \\x21-\\x7E])*"';
const PARAM = `[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED})`;
const MEDIA_TYPE = new RegExp(`^${NAME}/${NAME}(?:${PARAM})*$`);

export const MAX_MEDIA_TYPE_LENGTH = 255;

/** True when `value` is a well-formed media type (type/subtype with optional parameters). */
export function isMediaType(value: string): boolean {
  return value.length <= MAX_MEDIA_TYPE_LENGTH && MEDIA_TYPE.test(value);
}

/** A media type or `fallback` (for values read back from storage or parsed from inbound mail). */
export function safeMediaType(value: string | null | undefined, fallback = "application/octet-stream"): string {
  return value && isMediaType(value) ? value : fallback;
}

/** The request-schema field: a media type like `text/plain` or `text/plain; charset=utf-8`. */
export const mediaTypeSchema = z
  .string()
  .min(1)
  .max(MAX_MEDIA_TYPE_LENGTH)
  .refine(isMediaType, 'must be a media type like "text/plain" or "text/csv; charset=utf-8"');
