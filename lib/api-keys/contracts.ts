import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { isValidIpEntry } from "@/lib/auth/ip";
import { scopeSchema } from "@/lib/auth/scopes";
import { isoDate, uuidParam } from "@/lib/core/schemas";

const ipEntry = z
  .string()
  .max(64)
  .refine(isValidIpEntry, { message: "must be an IPv4 or IPv6 address or a CIDR range" });
const allowedIps = z.array(ipEntry).max(50).nullable();
const inboxIds = z.array(z.uuid()).max(100).nullable();

export const apiKeySchema = z.object({
  object: z.literal("api_key"),
  id: z.uuid(),
  name: z.string(),
  prefix: z.string().describe("Leading characters of the secret"),
  scopes: z.array(z.string()),
  status: z.enum(["active", "revoked"]),
  createdAt: isoDate,
  lastUsedAt: isoDate.nullable(),
  allowedIps: z.array(z.string()).nullable().describe("null = any IP"),
  inboxIds: z.array(z.uuid()).nullable().describe("Inboxes the key may send as; null or empty = unrestricted"),
  environment: z.enum(["live", "test"]),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const createApiKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(120),
  scopes: z.array(scopeSchema).min(1).max(64),
  allowedIps: allowedIps.optional(),
  inboxIds: inboxIds.optional(),
  environment: z.enum(["test", "live"]).nullable().optional(),
});
export type CreateApiKeyInput = z.infer<typeof createApiKeyBody>;

export const updateApiKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(120).optional(),
    allowedIps: allowedIps.optional(),
    inboxIds: inboxIds.optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { message: "Give at least one of name, allowedIps, inboxIds." });
export type UpdateApiKeyInput = z.infer<typeof updateApiKeyBody>;

const keyParams = z.strictObject({ keyId: uuidParam });
const one = z.object({ apiKey: apiKeySchema });

export const listApiKeys = defineContract({
  id: "listApiKeys",
  method: "GET",
  path: "/v1/api-keys",
  access: "keys:read",
  tag: "API keys",
  summary: "List API keys",
  description: "Every key of the organization, active and revoked, newest first. Secrets are never returned.",
  response: z.object({ apiKeys: z.array(apiKeySchema) }),
});

export const createApiKey = defineContract({
  id: "createApiKey",
  method: "POST",
  path: "/v1/api-keys",
  access: "keys:write",
  tag: "API keys",
  summary: "Create an API key",
  description:
    "The new key's scopes must be a subset of the calling key's (bundles expanded). A key restricted to inboxes or source addresses gives its restrictions to the keys it creates: an omitted `inboxIds` or `allowedIps` inherits the caller's, a list must lie inside them, and null or [] is refused (403 `not_permitted`). `inboxIds` must name inboxes of the organization (404). The secret is returned only in this response and never stored: a repeat with the same Idempotency-Key answers 409 `idempotency_key_replay_secret`.",
  body: createApiKeyBody,
  example: { name: "ci", scopes: ["keys:read"] },
  response: z.object({ apiKey: apiKeySchema, secret: z.string() }),
  secretFields: ["secret"],
  errors: ["not_permitted", "resource_not_found", "idempotency_key_replay_secret"],
});

export const getApiKey = defineContract({
  id: "getApiKey",
  method: "GET",
  path: "/v1/api-keys/{keyId}",
  access: "keys:read",
  tag: "API keys",
  summary: "Get an API key",
  params: keyParams,
  response: one,
});

export const updateApiKey = defineContract({
  id: "updateApiKey",
  method: "PATCH",
  path: "/v1/api-keys/{keyId}",
  access: "keys:write",
  tag: "API keys",
  summary: "Update an API key",
  description:
    "Changes the name, IP allowlist or inbox restriction. Scopes cannot be changed; create a new key. Only keys whose scopes the caller holds (403 `not_permitted`); a restricted caller sets restrictions only inside its own, so no key widens its own restrictions.",
  params: keyParams,
  body: updateApiKeyBody,
  example: { name: "renamed" },
  response: one,
  errors: ["not_permitted"],
});

export const revokeApiKey = defineContract({
  id: "revokeApiKey",
  method: "POST",
  path: "/v1/api-keys/{keyId}/revoke",
  access: "keys:write",
  tag: "API keys",
  summary: "Revoke an API key",
  description:
    "`active` → `revoked`, immediately and for good. Revoking a revoked key returns it unchanged. Only keys whose scopes the caller holds (403 `not_permitted`).",
  params: keyParams,
  response: one,
  errors: ["not_permitted"],
});
