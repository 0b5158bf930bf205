import { z } from "zod";
import { INBOX_ADDRESS_CHANNEL } from "@/lib/channels/definitions";
import { defineContract } from "@/lib/core/contract";
import { INBOX_MODES } from "@/db/schema/messaging";
import { isoDate, uuidParam } from "@/lib/core/schemas";

export const inboxSchema = z.object({
  object: z.literal("inbox"),
  id: z.uuid(),
  address: z.string(),
  domainId: z.uuid(),
  displayName: z.string().nullable(),
  mode: z.enum(INBOX_MODES),
  agent: z.string().nullable(),
  status: z.enum(["active", "paused", "deleted"]),
  channel: z.literal(INBOX_ADDRESS_CHANNEL),
  createdAt: isoDate,
  updatedAt: isoDate,
});

const params = z.strictObject({ inboxId: uuidParam });
const one = z.object({ inbox: inboxSchema });
const tag = "Inboxes";
const displayName = z.string().trim().min(1).max(120).nullable();
const agent = z.string().trim().min(1).max(120).nullable();

export const createInboxBody = z.strictObject({
  address: z.string().min(3).max(254),
  displayName: displayName.optional(),
  mode: z.enum(INBOX_MODES).optional(),
  agent: agent.optional(),
});

export const listInboxes = defineContract({
  id: "listInboxes",
  method: "GET",
  path: "/v1/inboxes",
  access: "inboxes:read",
  tag,
  summary: "List inboxes",
  description: "Every inbox of the organization that is not deleted.",
  response: z.object({ inboxes: z.array(inboxSchema) }),
});

export const createInbox = defineContract({
  id: "createInbox",
  method: "POST",
  path: "/v1/inboxes",
  access: "inboxes:write",
  tag,
  summary: "Create an inbox",
  description:
    "`address` must be on a verified domain of the organization or on the shared domain, and unique. `mode`: `agent` (default), `human` or `hybrid`.",
  body: createInboxBody,
  example: { address: "support@svc.localhost", displayName: "Support", agent: "triage-bot" },
  errors: ["conflict"],
  response: one,
});

export const getInbox = defineContract({
  id: "getInbox",
  method: "GET",
  path: "/v1/inboxes/{inboxId}",
  access: "inboxes:read",
  tag,
  summary: "Get an inbox",
  params,
  response: one,
});

export const updateInbox = defineContract({
  id: "updateInbox",
  method: "PATCH",
  path: "/v1/inboxes/{inboxId}",
  access: "inboxes:write",
  tag,
  summary: "Update an inbox",
  description: "Mode, agent, display name, or status `active`/`paused`. A paused inbox neither sends nor receives.",
  params,
  body: z
    .strictObject({
      displayName: displayName.optional(),
      mode: z.enum(INBOX_MODES).optional(),
      agent: agent.optional(),
      status: z.enum(["active", "paused"]).optional(),
    })
    .refine((v) => Object.keys(v).length > 0, { message: "Give at least one field to change." }),
  example: { status: "paused" },
  response: one,
});

export const deleteInbox = defineContract({
  id: "deleteInbox",
  method: "DELETE",
  path: "/v1/inboxes/{inboxId}",
  access: "inboxes:write",
  tag,
  summary: "Delete an inbox",
  description: "Status becomes `deleted`: it neither sends nor receives; its messages stay readable.",
  params,
  response: one,
});
