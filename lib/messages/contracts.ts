import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { paginationQuery } from "@/lib/core/pagination";
import { dateTimeInput, isoDate, paginationSchema, uuidParam } from "@/lib/core/schemas";
import { CHANNEL_OPTION_FIELDS, channelIdSchema, channelMetadataSchema } from "@/lib/channels/definitions";
import { recipientsSchema as recipients } from "@/lib/channels/fields";
import { mediaTypeSchema } from "@/lib/core/media-type";
import { DELIVERY_STATUS_DESCRIPTION, DELIVERY_STATUSES } from "./delivery-status";
import { templateSourceSchema } from "@/lib/templates/contracts";

/** ReactRenderInput: react-email source rendered in the sandbox (lib/templates/render). */
export const reactRenderInput = z.strictObject({
  source: templateSourceSchema,
  props: z.record(z.string(), z.unknown()).optional().describe("The component's props (at most 32 KiB serialized)."),
});

/** MessageTemplateRef: a template by id or slug, its version pinned at request time. */
export const messageTemplateRef = z.strictObject({
  id: z.string().trim().min(1).max(200).describe("Template UUID or slug."),
  version: z
    .int()
    .min(1)
    .optional()
    .describe(
      "Omit for the template's current version (pinned when the request is accepted); an archived template needs one.",
    ),
  variables: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("Validated against the pinned version's variable schema (at most 32 KiB serialized)."),
});

/** SendMessageAttachment: exactly one of `contentBase64` and `objectId` (lib/messages/stages/attach.ts). */
export const sendAttachmentSchema = z.strictObject({
  contentBase64: z.string().min(1).optional().describe("The file's bytes, base64 (8 MiB per file and in total)."),
  objectId: z
    .string()
    .min(1)
    .optional()
    .describe(
      "An object of one of the organization's buckets, fetched server-side; only a clean (or trusted skipped) object: 409 while its scan runs, 403 when infected. Stored files and inline ones together over 24 MiB: 413.",
    ),
  filename: z
    .string()
    .min(1)
    .max(120)
    .optional()
    .describe("Required inline; overrides the object's name for `objectId`."),
  contentType: mediaTypeSchema
    .optional()
    .describe("Default `application/octet-stream`; overrides the object's type for `objectId`."),
  delivery: z
    .enum(["attachment", "link", "auto"])
    .optional()
    .describe(
      "`attachment` (default) attaches the file. `link` (objects only) attaches nothing and never edits the body: `text` or `html` must carry an open share link of the object (else 400). `auto` attaches the object while it fits in the 24 MiB, otherwise it goes by link like `link` (no link in the body: 413).",
    ),
});

export const sendMessageBody = z.strictObject({
  inboxId: z.uuid(),
  to: recipients,
  // The channels' own options (email and a2a: cc, bcc, replyTo, inReplyTo, references, headers).
  ...CHANNEL_OPTION_FIELDS,
  subject: z.string().max(998).optional(),
  text: z.string().max(5_000_000).optional(),
  html: z.string().max(5_000_000).optional(),
  react: reactRenderInput.optional(),
  template: messageTemplateRef.optional(),
  idempotencyKey: z.string().min(1).max(128).optional(),
  attachments: z.array(sendAttachmentSchema).max(10).optional(),
  sendAt: dateTimeInput().nullable().optional(),
  channel: channelIdSchema.optional(),
  replyToMessageId: z.uuid().optional(),
  tags: z.record(z.string().min(1).max(256), z.string().max(256)).optional(),
  ignoreComplaints: z.boolean().optional(),
  contactId: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe(
      "A contact (bare id, `contact:<id>`, `@alias` or `@me`): its primary handle for the inbox's channel is added to `to`.",
    ),
  dryRun: z.boolean().optional(),
});
export type SendMessageInput = z.infer<typeof sendMessageBody>;

const warningSchema = z.object({
  recipient: z.string(),
  reason: z.literal("complaint"),
  message: z.string(),
  sourceMessageId: z.uuid().nullable(),
  providerMessageId: z.string().nullable(),
  complaintFeedbackType: z.string().nullable(),
  complaintUserAgent: z.string().nullable(),
  lastEventAt: isoDate.nullable(),
});

export const sendMessageResponse = z.object({
  id: z.uuid(),
  status: z.enum(["sent", "scheduled", "failed", "queued"]),
  warnings: z.array(warningSchema),
  providerMessageId: z.string().nullable(),
  error: z.string().nullable(),
  channel: channelIdSchema,
  channelMetadata: channelMetadataSchema,
  scheduledAt: isoDate.nullable(),
});

export const messagePreviewSchema = z.object({
  object: z.literal("message_preview"),
  status: z.literal("preview"),
  channel: channelIdSchema,
  inboxId: z.uuid(),
  from: z.object({ address: z.string(), name: z.string().nullable() }),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  subject: z.string(),
  textPreview: z.string(),
  hasHtml: z.boolean(),
  inReplyTo: z.string().nullable(),
  references: z.array(z.string()),
  /** Storage objects delivered by the share link the body carries (`delivery: "link"`, or `auto` past the limit). */
  linked: z.array(z.object({ objectId: z.uuid(), filename: z.string(), sizeBytes: z.int(), shareLinkId: z.string() })),
  attachments: z.array(z.object({ filename: z.string(), contentType: z.string(), sizeBytes: z.int() })),
  sizeBytes: z.int(),
  scheduledAt: isoDate.nullable(),
  warnings: z.array(warningSchema),
  template: z
    .object({ id: z.uuid(), version: z.int() })
    .nullable()
    .describe("The template version the send would render (pinned), else null."),
});

export const attachmentSchema = z.object({
  id: z.uuid(),
  filename: z.string().nullable(),
  contentType: z.string().nullable(),
  contentId: z.string().nullable(),
  sizeBytes: z.int().min(0).nullable(),
  createdAt: isoDate.nullable(),
  messageId: z.uuid(),
  disposition: z.enum(["attachment", "inline"]).nullable(),
});

export const messageSchema = z.object({
  object: z.literal("message"),
  id: z.uuid(),
  inboxId: z.uuid(),
  threadId: z.uuid().nullable(),
  direction: z.enum(["inbound", "outbound"]),
  status: z.string(),
  deliveryStatus: z.enum(DELIVERY_STATUSES).describe(DELIVERY_STATUS_DESCRIPTION),
  from: z.object({ address: z.string(), name: z.string().nullable() }),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  subject: z.string(),
  textPreview: z.string(),
  hasHtml: z.boolean(),
  hasAttachments: z.boolean(),
  receivedAt: isoDate,
  sentAt: isoDate.nullable().describe("Outbound: when the message was handed to its transport (null until then)."),
  createdAt: isoDate,
  textBody: z.string().nullable().optional(),
  htmlBody: z.string().nullable().optional(),
  attachments: z.array(attachmentSchema).optional(),
  channel: channelIdSchema,
  channelMetadata: channelMetadataSchema,
  messageId: z.string().describe("RFC 5322 Message-ID header"),
  inReplyTo: z.string().nullable(),
  references: z.array(z.string()),
  scheduledAt: isoDate.nullable(),
  contactId: z
    .uuid()
    .nullable()
    .describe(
      "The contact this message is linked to. Inbound: the contact owning the sender's handle when it arrived. Outbound: the contact named by `contactId` in the send, or the audience member's contact in a broadcast.",
    ),
  structured: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("Inbound to a schema inbox: the fields extracted by the inbox's schema (types coerced)."),
  extractionStatus: z
    .enum(["skipped", "pending", "validated", "quarantined", "passthrough", "error"])
    .nullable()
    .describe(
      "`pending` (stored; the LLM extraction, or the match for a verification wait, runs after the commit: no `message.received` or `message.quarantined` until it settles); `validated`; `quarantined` (held out of `message.received`, `message.quarantined` emitted); `passthrough` (delivered with `extractionErrors`); `error` (extraction failed); null without a schema.",
    ),
  extractionErrors: z
    .array(z.object({ field: z.string(), message: z.string() }))
    .nullable()
    .describe("The validation errors of a quarantined or passthrough message."),
});

const tagM = "Messages";

export const sendMessage = defineContract({
  id: "sendMessage",
  method: "POST",
  path: "/v1/messages",
  access: "messages:send",
  tag: tagM,
  summary: "Send a message",
  description:
    "Sends from one of the organization's inboxes over email or agent-to-agent (`a2a`: every recipient an inbox of this service; absent `channel` picks it automatically). `to`, `cc` and `bcc` take addresses or contact references (`@alias`, `contact:<id>`, `@me`); `contactId` adds a contact's primary address. The body is `text` and/or `html`, or `react` (react-email source rendered in a sandbox; `text` may accompany it as the plain part), or `template` (a stored template, its version pinned when the request is accepted — a scheduled send keeps that version; its subject template is used unless `subject` is given). `sendAt` schedules; `dryRun` previews without creating anything.",
  body: sendMessageBody,
  maxBodyBytes: 12 * 1024 * 1024,
  idempotencyKeyField: "idempotencyKey",
  example: {
    inboxId: "01930000-0000-7000-8000-000000000000",
    to: "someone@example.com",
    subject: "Hello",
    text: "Hi there",
  },
  errors: ["resource_not_found", "not_permitted", "conflict", "payload_too_large"],
  response: z.union([sendMessageResponse, messagePreviewSchema]),
});

/** The `q` of list searches: trimmed, 1–200 characters. */
const searchQuery = z.string().trim().min(1).max(200).describe("Search text: a case-insensitive substring.");

export const listMessages = defineContract({
  id: "listMessages",
  method: "GET",
  path: "/v1/messages",
  access: "messages:read",
  tag: tagM,
  summary: "List messages",
  description:
    "Inbound and outbound messages, newest first. Filters: `inboxId`, `threadId`, `direction`, `channel`, `deliveryStatus` (e.g. `bounced`), `extractionStatus` (e.g. `quarantined`), and `q`, a case-insensitive substring of the subject, the sender or a recipient.",
  query: z.strictObject({
    ...paginationQuery(),
    inboxId: z.uuid().optional(),
    threadId: z.uuid().optional(),
    direction: z.enum(["inbound", "outbound"]).optional(),
    channel: channelIdSchema.optional(),
    deliveryStatus: z.enum(DELIVERY_STATUSES).optional(),
    extractionStatus: z
      .enum(["pending", "validated", "quarantined", "passthrough", "error"])
      .optional()
      .describe("Schema inboxes: e.g. `quarantined`, the messages held for release or discard."),
    q: searchQuery.optional(),
  }),
  response: z.object({ messages: z.array(messageSchema), pagination: paginationSchema }),
});

const messageParams = z.strictObject({ messageId: uuidParam });

export const getMessage = defineContract({
  id: "getMessage",
  method: "GET",
  path: "/v1/messages/{messageId}",
  access: "messages:read",
  tag: tagM,
  summary: "Get a message",
  description: "With its bodies and attachments.",
  params: messageParams,
  response: z.object({ message: messageSchema }),
});

export const batchDeleteMessages = defineContract({
  id: "batchDeleteMessages",
  method: "POST",
  path: "/v1/messages/batch-delete",
  access: "messages:send",
  tag: tagM,
  summary: "Delete messages",
  description:
    "BatchDeleteMessagesRequest: 1..1000 message ids. Each id succeeds or fails on its own; a failure does not abort the rest. Audited as one `message.batch_deleted` row listing the deleted ids.",
  body: z.strictObject({ messageIds: z.array(z.uuid()).min(1).max(1000) }),
  example: { messageIds: ["01930000-0000-7000-8000-000000000000"] },
  response: z.object({
    object: z.literal("batch_delete_result"),
    deleted: z.array(z.string()),
    failed: z.array(z.object({ id: z.string(), code: z.string(), message: z.string() })),
  }),
});

export const outboundEventSchema = z.object({
  eventId: z.string(),
  type: z.string(),
  messageId: z.uuid().optional(),
  providerMessageId: z.string().nullable().optional(),
  recipient: z.string().nullable().optional(),
  occurredAt: isoDate.optional(),
  subject: z.string().optional(),
  from: z.string().optional(),
  to: z.array(z.string()).optional(),
  status: z.string().optional(),
  bounceType: z.enum(["Permanent", "Transient"]).optional(),
  bounceSubType: z.string().optional(),
  diagnosticCode: z.string().optional(),
  complaintFeedbackType: z.string().optional(),
  complaintUserAgent: z.string().optional(),
});

export const listMessageEvents = defineContract({
  id: "listMessageEvents",
  method: "GET",
  path: "/v1/messages/{messageId}/events",
  access: "messages:read",
  tag: tagM,
  summary: "Delivery events of a message",
  params: messageParams,
  response: z.object({ events: z.array(outboundEventSchema) }),
});

const outboundMessageSchema = z.object({
  id: z.string(),
  from: z.string().optional(),
  to: z.array(z.string()).optional(),
  subject: z.string().optional(),
  status: z.string().optional(),
  sentAt: isoDate.nullable().optional(),
  scheduledAt: isoDate.nullable().optional(),
  error: z.string().nullable().optional(),
});
const emailParams = z.strictObject({ emailId: uuidParam });

export const getOutboundEmail = defineContract({
  id: "getOutboundEmail",
  method: "GET",
  path: "/v1/outbound-emails/{emailId}",
  access: "messages:read",
  tag: tagM,
  summary: "Get an outbound email",
  params: emailParams,
  response: z.object({ message: outboundMessageSchema }),
});

export const cancelOutboundEmail = defineContract({
  id: "cancelOutboundEmail",
  method: "POST",
  path: "/v1/outbound-emails/{emailId}/cancel",
  access: "messages:send",
  tag: tagM,
  summary: "Cancel a scheduled email",
  description: "`scheduled` → `canceled`, before it fires. Anything else is 409.",
  params: emailParams,
  errors: ["conflict"],
  response: z.object({ message: outboundMessageSchema }),
});

const threadSchema = z.object({
  object: z.literal("thread"),
  id: z.uuid(),
  inboxId: z.uuid(),
  subject: z.string(),
  messageCount: z.int(),
  lastMessageAt: isoDate,
  createdAt: isoDate,
  messages: z.array(messageSchema).optional(),
});

export const listThreads = defineContract({
  id: "listThreads",
  method: "GET",
  path: "/v1/threads",
  access: "messages:read",
  tag: "Threads",
  summary: "List threads",
  description:
    "Most recent activity first; filter by `inboxId` and by `q`, a case-insensitive substring of the subject.",
  query: z.strictObject({ ...paginationQuery(), inboxId: z.uuid().optional(), q: searchQuery.optional() }),
  response: z.object({ threads: z.array(threadSchema), pagination: paginationSchema }),
});

export const getThread = defineContract({
  id: "getThread",
  method: "GET",
  path: "/v1/threads/{threadId}",
  access: "messages:read",
  tag: "Threads",
  summary: "Get a thread with its messages",
  params: z.strictObject({ threadId: uuidParam }),
  response: z.object({ thread: threadSchema }),
});

const attachmentParams = z.strictObject({ attachmentId: uuidParam });

export const getAttachment = defineContract({
  id: "getAttachment",
  method: "GET",
  path: "/v1/attachments/{attachmentId}",
  access: "messages:read",
  tag: "Attachments",
  summary: "Get attachment metadata",
  params: attachmentParams,
  response: attachmentSchema,
});

export const getAttachmentContent = defineContract({
  id: "getAttachmentContent",
  method: "GET",
  path: "/v1/attachments/{attachmentId}/content",
  access: "messages:read",
  tag: "Attachments",
  summary: "Download an attachment's bytes",
  description:
    "Inbound attachments are served once their malware scan found them clean: 409 while the scan is pending, 403 when infected or unscannable.",
  params: attachmentParams,
  errors: ["conflict", "not_permitted"],
  binary: true,
  response: z.unknown(),
});

export const getAttachmentDownloadUrl = defineContract({
  id: "getAttachmentDownloadUrl",
  method: "GET",
  path: "/v1/attachments/{attachmentId}/download-url",
  access: "messages:read",
  tag: "Attachments",
  summary: "Short-lived signed download URL",
  description:
    "A URL that downloads the attachment without an API key until it expires (`expiresInSeconds`, 1..604800, default 900). Inbound attachments only once scanned clean: 409 while pending, 403 when infected or unscannable.",
  params: attachmentParams,
  errors: ["conflict", "not_permitted"],
  query: z.strictObject({ expiresInSeconds: z.coerce.number().int().min(1).max(604_800).default(900) }),
  response: z.object({
    attachment: attachmentSchema,
    downloadUrl: z.url(),
    expiresInSeconds: z.int(),
    shareUrl: z.url(),
  }),
});

export const replyInThread = defineContract({
  id: "replyInThread",
  method: "POST",
  path: "/v1/threads/{threadId}/reply",
  access: "messages:send",
  tag: "Threads",
  summary: "Reply in a thread",
  description:
    "Sends `text` from the thread's inbox to the other party of its latest message (its sender when it came in, its recipients when it went out), with `Re:` and In-Reply-To, so the reply joins the thread. `attachments` are those of a send (inline bytes or stored objects); `ignoreComplaints` overrides complaint suppression as on a send.",
  params: z.strictObject({ threadId: uuidParam }),
  body: z.strictObject({
    text: z.string().trim().min(1, "Write a reply first.").max(5_000_000),
    attachments: sendMessageBody.shape.attachments,
    ignoreComplaints: sendMessageBody.shape.ignoreComplaints,
  }),
  example: { text: "Thanks, noted." },
  errors: ["conflict"],
  response: z.object({ id: z.uuid(), status: sendMessageResponse.shape.status, error: z.string().nullable() }),
});
