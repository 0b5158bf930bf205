import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { paginationQuery } from "@/lib/core/pagination";
import { isoDate, paginationSchema, uuidParam } from "@/lib/core/schemas";
import { listMessages } from "@/lib/messages/contracts";
import { HANDLE_KINDS, INBOX_ADDRESS_CHANNEL } from "@/lib/channels/definitions";

/**
 * Contacts (spec: Contacts): an address book of people and agents with handles per channel, and
 * the organization's own `self` contact. `{contactRef}` takes an id, `@alias`, `contact:<id>` or
 * `@me` (endpoints.md).
 */
const tag = "Contacts";

export const ALIAS = /^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$/i;
const alias = z
  .string()
  .regex(
    ALIAS,
    "Use 1 to 64 letters, digits, dots, hyphens and underscores, starting and ending with a letter or digit.",
  );
const displayName = z.string().trim().min(1).max(200);
const info = z.string().max(10_000);
const avatarUrl = z.url({ protocol: /^https?$/ }).max(2048);
const metadata = z.record(z.string(), z.unknown());

export const contactHandleSchema = z.object({
  object: z.literal("contact_handle"),
  id: z.uuid(),
  contactId: z.uuid(),
  channel: z.string(),
  value: z.string(),
  label: z.string().nullable(),
  isPrimary: z.boolean(),
  verified: z.boolean().describe("Always false for now: no channel proves a handle yet."),
  metadata,
  createdAt: isoDate,
  updatedAt: isoDate,
});

export const contactSchema = z.object({
  object: z.literal("contact"),
  id: z.uuid(),
  projectId: z.uuid().describe("The organization the contact belongs to."),
  userId: z.uuid().nullable(),
  displayName: z.string(),
  kind: z.enum(["person", "agent", "self"]),
  isSelf: z.boolean(),
  alias: z
    .string()
    .nullable()
    .describe(
      "Unique in the organization (case-insensitive); `@alias` names the contact wherever a contact reference is accepted.",
    ),
  info: z.string().nullable(),
  metadata,
  avatarUrl: z.string().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
  handles: z.array(contactHandleSchema).optional().describe("Detail view only."),
});

export const handleInput = z.strictObject({
  channel: z.enum(HANDLE_KINDS),
  value: z.string().trim().min(1).max(500),
  label: z.string().max(100).optional(),
  isPrimary: z.boolean().default(false),
  metadata: metadata.optional(),
});

const contactRef = z.string().min(1).max(200);
const params = z.strictObject({ contactRef });
const handleParams = z.strictObject({ contactRef, handleId: uuidParam });
const one = z.object({ contact: contactSchema });
const oneHandle = z.object({ contactHandle: contactHandleSchema });

export const listContacts = defineContract({
  id: "listContacts",
  method: "GET",
  path: "/v1/contacts",
  access: "contacts:read",
  tag,
  summary: "List contacts",
  description:
    "Newest first (the `self` contact included once it exists). `kind` filters; `q` matches the display name, alias or a handle's value (case-insensitive substring).",
  query: z.strictObject({
    ...paginationQuery(),
    kind: z.enum(["person", "agent", "self"]).optional(),
    q: z.string().trim().min(1).max(200).optional(),
  }),
  response: z.object({ object: z.literal("list"), data: z.array(contactSchema), pagination: paginationSchema }),
});

export const createContact = defineContract({
  id: "createContact",
  method: "POST",
  path: "/v1/contacts",
  access: "contacts:write",
  tag,
  summary: "Create a contact",
  description:
    "A person or an agent, with optional handles (up to 20). An alias or a handle value already used in the organization is a 409 naming it. A `postal` handle needs metadata `{name, street, line2?, postalCode, city, state?, country}`.",
  body: z.strictObject({
    displayName,
    alias: alias.optional(),
    kind: z.enum(["person", "agent"]).default("person"),
    info: info.optional(),
    avatarUrl: avatarUrl.optional(),
    metadata: metadata.optional(),
    handles: z.array(handleInput).max(20).optional(),
  }),
  example: {
    displayName: "Ada Lovelace",
    alias: "ada",
    kind: "person",
    handles: [{ channel: INBOX_ADDRESS_CHANNEL, value: "ada@example.com", isPrimary: true }],
  },
  errors: ["conflict"],
  response: one,
});

export const getContact = defineContract({
  id: "getContact",
  method: "GET",
  path: "/v1/contacts/{contactRef}",
  access: "contacts:read",
  tag,
  summary: "Get a contact",
  description:
    "By id, `@alias`, `contact:<id>` or `@me` (the organization's own contact, made on first use), with its handles.",
  params,
  response: one,
});

export const updateContact = defineContract({
  id: "updateContact",
  method: "PATCH",
  path: "/v1/contacts/{contactRef}",
  access: "contacts:write",
  tag,
  summary: "Update a contact",
  description: "`null` clears `alias`, `info` or `avatarUrl`. The `self` contact's kind cannot change.",
  params,
  body: z.strictObject({
    displayName: displayName.optional(),
    alias: alias.nullable().optional(),
    kind: z.enum(["person", "agent"]).optional(),
    info: info.nullable().optional(),
    avatarUrl: avatarUrl.nullable().optional(),
    metadata: metadata.optional(),
  }),
  example: { info: "Prefers email before noon." },
  errors: ["conflict"],
  response: one,
});

export const deleteContact = defineContract({
  id: "deleteContact",
  method: "DELETE",
  path: "/v1/contacts/{contactRef}",
  access: "contacts:write",
  tag,
  summary: "Delete a contact",
  description: "Deletes the contact and its handles. The `self` contact cannot be deleted (403 `not_permitted`).",
  params,
  response: z.object({ deleted: z.literal(true), id: z.uuid() }),
});

export const addContactHandle = defineContract({
  id: "addContactHandle",
  method: "POST",
  path: "/v1/contacts/{contactRef}/handles",
  access: "contacts:write",
  tag,
  summary: "Add a handle",
  description:
    "`isPrimary: true` makes it the contact's primary handle for its channel (the previous one stops being primary). A value already used in the organization is a 409.",
  params,
  body: handleInput,
  example: { channel: INBOX_ADDRESS_CHANNEL, value: "ada@work.example.com", label: "work" },
  errors: ["conflict"],
  response: oneHandle,
});

export const updateContactHandle = defineContract({
  id: "updateContactHandle",
  method: "PATCH",
  path: "/v1/contacts/{contactRef}/handles/{handleId}",
  access: "contacts:write",
  tag,
  summary: "Update a handle",
  description: "Changes the value, label, metadata or primary flag; the channel is fixed.",
  params: handleParams,
  body: z.strictObject({
    value: z.string().trim().min(1).max(500).optional(),
    label: z.string().max(100).nullable().optional(),
    isPrimary: z.boolean().optional(),
    metadata: metadata.optional(),
  }),
  example: { isPrimary: true },
  errors: ["conflict"],
  response: oneHandle,
});

export const deleteContactHandle = defineContract({
  id: "deleteContactHandle",
  method: "DELETE",
  path: "/v1/contacts/{contactRef}/handles/{handleId}",
  access: "contacts:write",
  tag,
  summary: "Delete a handle",
  params: handleParams,
  response: z.object({ deleted: z.literal(true), id: z.uuid() }),
});

export const listContactMessages = defineContract({
  id: "listContactMessages",
  method: "GET",
  path: "/v1/contacts/{contactRef}/messages",
  access: "messages:read",
  tag,
  summary: "A contact's message history",
  description: "Messages of the organization from or to any of the contact's email and a2a handles, newest first.",
  params,
  query: z.strictObject({ ...paginationQuery() }),
  response: listMessages.response,
});
