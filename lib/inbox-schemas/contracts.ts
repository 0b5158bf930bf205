import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { isoDate, uuidParam } from "@/lib/core/schemas";
import { messageSchema } from "@/lib/messages/contracts";
import { SCALAR_TYPES } from "./extract";

const scalarType = z.enum(SCALAR_TYPES);
const enumValues = z.array(z.string().min(1).max(200)).min(1).max(100);
const common = { required: z.boolean().optional(), description: z.string().max(500).optional() };
const itemDecl = z.union([
  z.strictObject({ type: scalarType }),
  z.strictObject({ type: z.literal("enum"), values: enumValues }),
]);

export const fieldDeclSchema = z.union([
  scalarType.describe("Shorthand for `{type}`."),
  z.strictObject({ type: scalarType, ...common }),
  z.strictObject({ type: z.literal("enum"), values: enumValues, ...common }),
  z.strictObject({ type: z.literal("array"), items: itemDecl, ...common }),
]);

export const flatSchemaSchema = z
  .record(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "field names are identifiers (letters, digits, _)"),
    fieldDeclSchema,
  )
  .refine((s) => Object.keys(s).length >= 1 && Object.keys(s).length <= 100, "between 1 and 100 fields")
  .describe(
    'Field names to type declarations: `string`, `number`, `integer`, `boolean`, `email`, `url`, `date` (or `{type, required}`), `{type: "enum", values}`, `{type: "array", items}`.',
  );

const policy = z.enum(["quarantine", "passthrough"]);

export const inboxSchemaSchema = z.object({
  object: z.literal("inbox_schema"),
  inboxId: z.uuid(),
  schema: z.record(z.string(), z.unknown()),
  onValidationError: policy,
  extractionHint: z.string().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
});

const tag = "Inboxes";
const params = z.strictObject({ inboxId: uuidParam });

export const setInboxSchema = defineContract({
  id: "setInboxSchema",
  method: "PUT",
  path: "/v1/inboxes/{inboxId}/schema",
  access: "inboxes:write",
  tag,
  summary: "Set an inbox's extraction schema",
  description:
    "Every inbound message of the inbox (any channel) then gets `structured` (fields extracted from a JSON body, a JSON attachment or `key: value` lines, types coerced) and `extractionStatus`. A message that does not validate is quarantined (`message.quarantined` instead of `message.received`) or, with `passthrough`, delivered with its errors.",
  params,
  body: z.strictObject({
    schema: flatSchemaSchema,
    onValidationError: policy.optional().describe("Default `quarantine`."),
    extractionHint: z.string().max(1000).nullable().optional().describe("Context for an LLM extractor only."),
  }),
  response: inboxSchemaSchema,
  example: {
    schema: {
      orderId: { type: "integer", required: true },
      email: "email",
      status: { type: "enum", values: ["new", "paid"] },
    },
    onValidationError: "quarantine",
  },
});

export const getInboxSchema = defineContract({
  id: "getInboxSchema",
  method: "GET",
  path: "/v1/inboxes/{inboxId}/schema",
  access: "inboxes:read",
  tag,
  summary: "Get an inbox's extraction schema",
  description: "404 when the inbox has none.",
  params,
  response: inboxSchemaSchema,
});

export const deleteInboxSchema = defineContract({
  id: "deleteInboxSchema",
  method: "DELETE",
  path: "/v1/inboxes/{inboxId}/schema",
  access: "inboxes:write",
  tag,
  summary: "Remove an inbox's extraction schema",
  description: "Later messages are no longer extracted (`extractionStatus` null). 404 when the inbox has none.",
  params,
  response: z.object({ object: z.literal("inbox_schema"), inboxId: z.uuid(), deleted: z.literal(true) }),
});

const extractionErrorsSchema = z.array(z.object({ field: z.string(), message: z.string() })).nullable();

export const testInboxSchema = defineContract({
  id: "testInboxSchema",
  method: "POST",
  path: "/v1/inboxes/{inboxId}/schema/test",
  access: "inboxes:write",
  tag,
  summary: "Try an extraction schema on a message text",
  description:
    "Runs the extraction an inbound message with this text (or HTML) would get — under `schema` when given (a draft, not stored), else the inbox's stored schema — and returns `structured`, `extractionStatus` and `extractionErrors`. Stores and emits nothing. 404 when no schema is given and the inbox has none.",
  params,
  body: z
    .strictObject({
      schema: flatSchemaSchema.optional(),
      onValidationError: policy.optional(),
      extractionHint: z.string().max(1000).nullable().optional(),
      text: z.string().max(100_000).optional(),
      html: z.string().max(200_000).optional(),
    })
    .refine((b) => b.text !== undefined || b.html !== undefined, {
      message: "text or html is required",
      path: ["text"],
    }),
  response: z.object({
    object: z.literal("extraction_test"),
    inboxId: z.uuid(),
    structured: z.record(z.string(), z.unknown()).nullable(),
    extractionStatus: z.enum(["validated", "quarantined", "passthrough", "error"]),
    extractionErrors: extractionErrorsSchema,
  }),
  example: { schema: { orderId: { type: "integer", required: true } }, text: "Order ID: 42" },
});

const messageParams = z.strictObject({ messageId: uuidParam });

export const releaseQuarantinedMessage = defineContract({
  id: "releaseQuarantinedMessage",
  method: "POST",
  path: "/v1/messages/{messageId}/release",
  access: "inboxes:write",
  tag: "Messages",
  summary: "Release a quarantined message",
  description:
    "A message a schema inbox quarantined is delivered: its `extractionStatus` becomes `passthrough` (the extraction errors stay attached) and `message.received` is emitted (data `released: true`); pending verification waits registered before it arrived (or within 15 s after) may resolve from it. 409 `conflict` when the message is not quarantined (already released or never held). Scope `inboxes:write`: the scope that sets the inbox's quarantine policy lifts it for one message.",
  params: messageParams,
  errors: ["conflict"],
  response: z.object({ message: messageSchema }),
});

export const discardQuarantinedMessage = defineContract({
  id: "discardQuarantinedMessage",
  method: "POST",
  path: "/v1/messages/{messageId}/discard",
  access: "inboxes:write",
  tag: "Messages",
  summary: "Discard a quarantined message",
  description:
    "Deletes a message a schema inbox quarantined, with its attachments; emits nothing (`message.quarantined` was its only event). 409 `conflict` when the message is not quarantined: other messages are deleted with `POST /v1/messages/batch-delete`.",
  params: messageParams,
  errors: ["conflict"],
  response: z.object({ object: z.literal("message"), id: z.uuid(), discarded: z.literal(true) }),
});
