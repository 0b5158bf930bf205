import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { paginationQuery } from "@/lib/core/pagination";
import { isoDate, paginationSchema, uuidParam } from "@/lib/core/schemas";
import { sendMessageBody } from "@/lib/messages/contracts";

/**
 * Audiences and broadcasts (spec part 8). Paths and scopes from endpoints.md. Where the spec is
 * silent (decisions, written down in docs/ARCHITECTURE.md): a member is `{email}` or `{contact}`
 * (a reference), with optional `name` and `metadata`; importing an address that is already a member
 * leaves that member as it is (an unsubscribed member stays unsubscribed); the detail pages its
 * members (newest first) with `limit` and `cursor`.
 */
const tag = "Audiences";

export const audienceSchema = z.object({
  object: z.literal("audience"),
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.string(),
  memberCount: z.int().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
});

export const audienceMemberSchema = z.object({
  object: z.literal("audience_member"),
  id: z.uuid(),
  audienceId: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  contactId: z.uuid().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  status: z.enum(["active", "unsubscribed"]),
  source: z.string(),
  createdAt: isoDate,
  updatedAt: isoDate,
});

const BROADCAST_STATUSES = ["queued", "sending", "completed"] as const;
export const broadcastSchema = z.object({
  object: z.literal("broadcast"),
  id: z.string().describe("`bcast_…`"),
  audienceId: z.uuid(),
  inboxId: z.uuid(),
  status: z
    .enum(BROADCAST_STATUSES)
    .describe(
      "`queued` until members are being made into messages, `sending` while any is made or queued for its transport, `completed` when every member's message is final.",
    ),
  counts: z.object({
    total: z.int().describe("Active members in the snapshot taken when the broadcast was queued."),
    sent: z.int(),
    failed: z.int(),
    suppressed: z
      .int()
      .describe("Members skipped: suppressed or complained (unless ignoreComplaints), or unsubscribed since."),
    pending: z.int().describe("Members whose message is not final yet."),
  }),
  template: z.object({ id: z.uuid(), version: z.int() }).nullable(),
  createdAt: isoDate,
  completedAt: isoDate.nullable(),
});

const audienceParams = z.strictObject({ audienceId: uuidParam });
const memberInput = z
  .strictObject({
    email: z
      .string()
      .trim()
      .min(1)
      .max(320)
      .optional()
      .describe("An address, or a contact reference (`@alias`, `contact:<id>`, `@me`)."),
    contact: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe("A contact reference: the member's address is its primary email handle."),
    name: z.string().trim().min(1).max(200).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((m) => (m.email === undefined) !== (m.contact === undefined), {
    message: "Give exactly one of `email` or `contact`.",
  });

export const listAudiences = defineContract({
  id: "listAudiences",
  method: "GET",
  path: "/v1/audiences",
  access: "audiences:read",
  tag,
  summary: "List audiences",
  description: "The organization's audiences, newest first, with their member counts.",
  response: z.object({ audiences: z.array(audienceSchema) }),
});

export const createAudience = defineContract({
  id: "createAudience",
  method: "POST",
  path: "/v1/audiences",
  access: "audiences:write",
  tag,
  summary: "Create an audience",
  body: z.strictObject({
    name: z.string().trim().min(1).max(200),
    description: z.string().trim().max(2000).optional(),
  }),
  example: { name: "Newsletter", description: "Monthly product news" },
  response: z.object({ list: audienceSchema }),
});

export const getAudience = defineContract({
  id: "getAudience",
  method: "GET",
  path: "/v1/audiences/{audienceId}",
  access: "audiences:read",
  tag,
  summary: "Get an audience with its members",
  description:
    "Members newest first, a page at a time (`limit` 1–100, default 100; `cursor` from `pagination.nextCursor`); `status` filters.",
  params: audienceParams,
  query: z.strictObject({ ...paginationQuery(100), status: z.enum(["active", "unsubscribed"]).optional() }),
  response: z.object({ list: audienceSchema, members: z.array(audienceMemberSchema), pagination: paginationSchema }),
});

export const deleteAudience = defineContract({
  id: "deleteAudience",
  method: "DELETE",
  path: "/v1/audiences/{audienceId}",
  access: "audiences:write",
  tag,
  summary: "Delete an audience",
  description: "Deletes the audience, its members and its broadcasts' progress records; messages already sent stay.",
  params: audienceParams,
  response: z.object({ deleted: z.boolean(), id: z.uuid() }),
});

export const addAudienceMembers = defineContract({
  id: "addAudienceMembers",
  method: "POST",
  path: "/v1/audiences/{audienceId}/members",
  access: "audiences:write",
  tag,
  summary: "Add members",
  description:
    "1–2,000 members by address or contact reference. Duplicates (in the request or already members) are merged; `imported` counts the new members. An existing member is left as it is — an unsubscribed member stays unsubscribed.",
  params: audienceParams,
  body: z.strictObject({ members: z.array(memberInput).min(1).max(2000) }),
  example: { members: [{ email: "ada@example.com", name: "Ada" }, { contact: "@bob" }] },
  response: z.object({ audienceId: z.uuid(), imported: z.int() }),
});

export const removeAudienceMember = defineContract({
  id: "removeAudienceMember",
  method: "DELETE",
  path: "/v1/audiences/{audienceId}/members/{memberId}",
  access: "audiences:write",
  tag,
  summary: "Remove a member",
  params: z.strictObject({ audienceId: uuidParam, memberId: uuidParam }),
  response: z.object({ deleted: z.boolean(), id: z.uuid() }),
});

/** BroadcastRequest: a send's body fields; the per-recipient ones are refused (400 naming them). */
export const PER_RECIPIENT_FIELDS = [
  "to",
  "cc",
  "bcc",
  "contactId",
  "channel",
  "sendAt",
  "inReplyTo",
  "references",
  "replyToMessageId",
  "dryRun",
  "buttons",
] as const;
export const broadcastBody = sendMessageBody
  .pick({
    inboxId: true,
    subject: true,
    text: true,
    html: true,
    react: true,
    template: true,
    attachments: true,
    idempotencyKey: true,
    replyTo: true,
    headers: true,
    tags: true,
    ignoreComplaints: true,
  })
  .extend(
    Object.fromEntries(PER_RECIPIENT_FIELDS.map((f) => [f, z.unknown().optional()])) as Record<
      (typeof PER_RECIPIENT_FIELDS)[number],
      z.ZodOptional<z.ZodUnknown>
    >,
  );

export const sendBroadcast = defineContract({
  id: "sendBroadcast",
  method: "POST",
  path: "/v1/audiences/{audienceId}/send",
  access: "audiences:write",
  tag,
  summary: "Broadcast to an audience",
  description:
    "Answers 202 at once and sends one message per active member on the workflow engine. The body (`text`/`html`, `react` or `template`) is rendered once, now; the members are those of the audience now. Each member's message carries `List-Unsubscribe` and one-click `List-Unsubscribe-Post` (RFC 8058). Per-member idempotency key `{idempotencyKey}:{address}` (the base derives from the organization, audience and body when omitted), so a repeated broadcast never reaches a member twice. Suppressed and complained addresses are skipped unless `ignoreComplaints`. Per-recipient fields (`to`, `cc`, `bcc`, `contactId`, `channel`, `sendAt`, `inReplyTo`, `references`, `replyToMessageId`, `dryRun`, `buttons`, `telegram`) are 400.",
  params: audienceParams,
  body: broadcastBody,
  successStatus: 202,
  idempotencyKeyField: "idempotencyKey",
  maxBodyBytes: 12 * 1024 * 1024,
  example: { inboxId: "01930000-0000-7000-8000-000000000000", subject: "News", text: "Hello from us" },
  errors: ["resource_not_found", "not_permitted"],
  response: z.object({
    object: z.literal("broadcast"),
    id: z.string(),
    audienceId: z.uuid(),
    status: z.literal("queued"),
  }),
});

export const getBroadcast = defineContract({
  id: "getBroadcast",
  method: "GET",
  path: "/v1/broadcasts/{broadcastId}",
  access: "audiences:read",
  tag,
  summary: "Get a broadcast's progress",
  params: z.strictObject({ broadcastId: z.string().min(1).max(60).describe("`bcast_…` (or its uuid)") }),
  response: z.object({ broadcast: broadcastSchema }),
});
