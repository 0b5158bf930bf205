import { ApiError, invalidRequest } from "@/lib/core/errors";
import type { SendMessageInput } from "../contracts";
import { isReservedHeader } from "../headers";
import type { StoredAttachment } from "../store";
import type { ValidatedRequest } from "./draft";

const MAX_FILE_BYTES = 8 * 1024 * 1024;
const MAX_TOTAL_BYTES = 8 * 1024 * 1024;
const MAX_SCHEDULE_MS = 30 * 86_400_000;

/**
 * The body's sources exclude each other: `template` stands alone; `react` renders the html (a `text`
 * beside it is the plain part). `buttons` are for Telegram inboxes, which this deployment has not.
 */
export function refuseConflictingBody(input: SendMessageInput): void {
  if (input.template) {
    for (const field of ["text", "html", "react"] as const) {
      if (input[field] !== undefined) throw invalidRequest(`\`template\` cannot be combined with \`${field}\`: the template renders the body.`, "template");
    }
  }
  if (input.react && input.html !== undefined) throw invalidRequest("`react` cannot be combined with `html`: the component renders the html.", "react");
  if (input.buttons !== undefined) throw invalidRequest("`buttons` are only for Telegram inboxes.", "buttons");
}

export function decodeAttachments(input: SendMessageInput): StoredAttachment[] {
  let total = 0;
  return (input.attachments ?? []).map((a, i) => {
    const param = `attachments[${i}]`;
    if (a.objectId !== undefined) throw invalidRequest("`objectId` attachments are not supported yet.", `${param}.objectId`);
    if (a.contentBase64 === undefined) throw invalidRequest("Give `contentBase64`.", `${param}.contentBase64`);
    if (!a.filename) throw invalidRequest("Inline attachments need a `filename`.", `${param}.filename`);
    if (a.delivery === "link") throw invalidRequest("`delivery: link` needs a storage object; not supported yet.", `${param}.delivery`);
    const clean = a.contentBase64.replace(/\s+/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) throw invalidRequest("`contentBase64` is not valid base64.", `${param}.contentBase64`);
    const content = Buffer.from(clean, "base64");
    if (content.length > MAX_FILE_BYTES) throw new ApiError("payload_too_large", `Attachment ${a.filename} is over 8 MiB.`, param);
    total += content.length;
    if (total > MAX_TOTAL_BYTES) throw new ApiError("payload_too_large", "Inline attachments are over 8 MiB in total.", "attachments");
    return { filename: a.filename, contentType: a.contentType ?? "application/octet-stream", content, disposition: "attachment" };
  });
}

export function customHeaders(input: SendMessageInput): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (isReservedHeader(name)) throw invalidRequest(`The ${name} header is set by the service.`, `headers.${name}`);
    if (/[\r\n]/.test(value)) throw invalidRequest("Header values cannot contain line breaks.", `headers.${name}`);
    out[name] = value;
  }
  return out;
}

export function scheduleOf(input: SendMessageInput, now: Date): Date | null {
  if (!input.sendAt) return null;
  const sendAt = new Date(input.sendAt);
  if (sendAt.getTime() <= now.getTime()) throw invalidRequest("`sendAt` must be in the future.", "sendAt");
  if (sendAt.getTime() - now.getTime() > MAX_SCHEDULE_MS) throw invalidRequest("`sendAt` can be at most 30 days ahead.", "sendAt");
  return sendAt;
}

/** Stage 1: the request's own rules (nothing looked up). */
export function validateRequest(input: SendMessageInput, now: Date): ValidatedRequest {
  refuseConflictingBody(input);
  return { input, headers: customHeaders(input), tags: input.tags ?? {}, files: decodeAttachments(input), sendAt: scheduleOf(input, now) };
}
