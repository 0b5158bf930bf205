import { ApiError, invalidRequest } from "@/lib/core/errors";
import type { SendMessageInput } from "../contracts";
import { requestHeaders } from "@/lib/channels";
import type { RequestedAttachment, ValidatedRequest } from "./draft";

const MAX_FILE_BYTES = 8 * 1024 * 1024;
const MAX_TOTAL_BYTES = 8 * 1024 * 1024;
const MAX_SCHEDULE_MS = 30 * 86_400_000;

/**
 * The body's sources exclude each other: `template` stands alone; `react` renders the html (a `text`
 * beside it is the plain part).
 */
export function refuseConflictingBody(input: SendMessageInput): void {
  if (input.template) {
    for (const field of ["text", "html", "react"] as const) {
      if (input[field] !== undefined)
        throw invalidRequest(
          `\`template\` cannot be combined with \`${field}\`: the template renders the body.`,
          "template",
        );
    }
  }
  if (input.react && input.html !== undefined)
    throw invalidRequest("`react` cannot be combined with `html`: the component renders the html.", "react");
}

/**
 * `attachments`: exactly one of `contentBase64` (decoded here, 8 MiB per file and in total) or
 * `objectId` (fetched by the attach stage); `delivery: "link"` only for an object.
 */
export function decodeAttachments(input: SendMessageInput): RequestedAttachment[] {
  let total = 0;
  return (input.attachments ?? []).map((a, i): RequestedAttachment => {
    const param = `attachments[${i}]`;
    if (a.objectId !== undefined && a.contentBase64 !== undefined)
      throw invalidRequest("Give exactly one of `contentBase64` and `objectId`, not both.", param);
    if (a.objectId !== undefined) {
      return {
        param,
        object: {
          id: a.objectId,
          filename: a.filename ?? null,
          contentType: a.contentType ?? null,
          delivery: a.delivery ?? "attachment",
        },
      };
    }
    if (a.contentBase64 === undefined)
      throw invalidRequest("Give `contentBase64` (the file's bytes) or `objectId` (a stored object).", param);
    if (!a.filename) throw invalidRequest("Inline attachments need a `filename`.", `${param}.filename`);
    if (a.delivery === "link")
      throw invalidRequest(
        "`delivery: link` is for a storage object (`objectId`) whose share link the body carries.",
        `${param}.delivery`,
      );
    const clean = a.contentBase64.replace(/\s+/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1)
      throw invalidRequest("`contentBase64` is not valid base64.", `${param}.contentBase64`);
    const content = Buffer.from(clean, "base64");
    if (content.length > MAX_FILE_BYTES)
      throw new ApiError("payload_too_large", `Attachment ${a.filename} is over 8 MiB.`, param);
    total += content.length;
    if (total > MAX_TOTAL_BYTES)
      throw new ApiError("payload_too_large", "Inline attachments are over 8 MiB in total.", "attachments");
    return {
      param,
      inline: {
        filename: a.filename,
        contentType: a.contentType ?? "application/octet-stream",
        content,
        disposition: "attachment",
      },
    };
  });
}

/** The request's custom `headers`, checked (the message's `headers` column). */
export function customHeaders(input: SendMessageInput): Record<string, string> {
  return requestHeaders(input);
}

export function scheduleOf(input: SendMessageInput, now: Date): Date | null {
  if (!input.sendAt) return null;
  const sendAt = new Date(input.sendAt);
  if (sendAt.getTime() <= now.getTime()) throw invalidRequest("`sendAt` must be in the future.", "sendAt");
  if (sendAt.getTime() - now.getTime() > MAX_SCHEDULE_MS)
    throw invalidRequest("`sendAt` can be at most 30 days ahead.", "sendAt");
  return sendAt;
}

/** Stage 1: the request's own rules (nothing looked up). */
export function validateRequest(input: SendMessageInput, now: Date): ValidatedRequest {
  refuseConflictingBody(input);
  return {
    input,
    headers: customHeaders(input),
    tags: input.tags ?? {},
    attachments: decodeAttachments(input),
    sendAt: scheduleOf(input, now),
  };
}
