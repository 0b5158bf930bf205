import { z } from "zod";
import { invalidRequest } from "@/lib/core/errors";

/**
 * What callers may put in a message's headers. Custom headers (`headers` on send) must not be
 * ones the service writes (addressing, MIME structure, DKIM) or ones receivers trust as a record
 * of transport and authentication (Received, Authentication-Results, ARC, Resent-*, provenance):
 * a caller setting those could forge another hop's verdict. Message-IDs (`inReplyTo`,
 * `references`) must be RFC 5322 msg-ids, so nothing but an id reaches those header lines.
 */

const SET_BY_SERVICE = new Set([
  "from",
  "to",
  "cc",
  "bcc",
  "subject",
  "date",
  "sender",
  "reply-to",
  "message-id",
  "in-reply-to",
  "references",
  "mime-version",
  "content-type",
  "content-transfer-encoding",
  "content-disposition",
  "content-id",
  "return-path",
]);
const TRACE_AND_AUTH = new Set([
  "received",
  "received-spf",
  "authentication-results",
  "dkim-signature",
  "domainkey-signature",
  "delivered-to",
  "x-original-to",
]);
const RESERVED_PREFIXES = ["resent-", "arc-", "x-svc-"];

/** True for a header name callers may not set (case-insensitive). */
export function isReservedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return SET_BY_SERVICE.has(lower) || TRACE_AND_AUTH.has(lower) || RESERVED_PREFIXES.some((p) => lower.startsWith(p));
}

/** RFC 5322 field-name as we accept it: letters, digits and hyphens. */
const HEADER_NAME = /^[A-Za-z0-9-]{1,76}$/;

/** `headers` on send: each problem is reported at `headers.<Name>`. */
export const customHeadersSchema = z.record(z.string(), z.string().max(998)).superRefine((headers, ctx) => {
  for (const [name, value] of Object.entries(headers)) {
    const path = [name];
    if (!HEADER_NAME.test(name))
      ctx.addIssue({ code: "custom", path, message: "must be a header name (letters, digits and hyphens)" });
    else if (isReservedHeader(name))
      ctx.addIssue({
        code: "custom",
        path,
        message: `the ${name} header is set by the service or by receiving servers, not by callers`,
      });
    else if (/[\r\n\0]/.test(value))
      ctx.addIssue({ code: "custom", path, message: "header values cannot contain line breaks" });
  }
});

// RFC 5322 §3.6.4 msg-id = "<" id-left "@" id-right ">" (no CFWS inside, obsolete forms refused).
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const DOT_ATOM = `${ATEXT}(?:\\.${ATEXT})*`;
const NO_FOLD_LITERAL = "\\[[\\x21-\\x5A\\x5E-\\x7E]*\\]";
const MSG_ID = new RegExp(`^<${DOT_ATOM}@(?:${DOT_ATOM}|${NO_FOLD_LITERAL})>$`);

/** True for `<id@domain>`; the bare `id@domain` form callers may send is accepted too. */
export function isMessageId(value: string): boolean {
  const v = value.trim();
  return MSG_ID.test(v.startsWith("<") ? v : `<${v}>`);
}

/** `inReplyTo` and each of `references`. */
export const messageIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(250)
  .refine(isMessageId, 'must be a Message-ID like "<id@example.com>"');

/** The valid msg-ids in a received header value (`<a@x> <b@y>`, or one bare `a@x`), in order. */
export function messageIdsIn(value: string | string[] | undefined): string[] {
  const parts = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return parts.flatMap((part) => {
    const bracketed = part.match(/<[^<>]*>/g);
    return (bracketed ?? [part.trim()]).filter(isMessageId).map((id) => (id.startsWith("<") ? id : `<${id}>`));
  });
}

/** `headers` of a send as stored: each checked here too (callers other than HTTP skip the contract). */
export function customHeaders(input: { headers?: Record<string, string> }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (isReservedHeader(name)) throw invalidRequest(`The ${name} header is set by the service.`, `headers.${name}`);
    if (/[\r\n]/.test(value)) throw invalidRequest("Header values cannot contain line breaks.", `headers.${name}`);
    out[name] = value;
  }
  return out;
}
