import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { paginationQuery } from "@/lib/core/pagination";
import { isoDate, paginationSchema } from "@/lib/core/schemas";

/**
 * Agent passports (spec: Agent passports): an `agt_` id and an Ed25519 signing key per agent; an
 * API key or inbox bound to one makes every message it sends carry a signed `X-Svc-Provenance`
 * header, verifiable against the public JWKS. `{agentId}` takes the `agt_` id or the UUID.
 */
const tag = "Agents";

export const AGENT_ID_PATTERN = /^agt_[0-9a-f]{32}$/;

const display = z.string().trim().min(1).max(120);
const description = z.string().max(2000);

export const agentKeySchema = z.object({
  kid: z.string().describe("The key's id in the JWKS (RFC 7638 thumbprint)."),
  kty: z.literal("OKP"),
  crv: z.literal("Ed25519"),
  alg: z.literal("EdDSA"),
  x: z.string(),
  status: z.enum(["active", "retired", "revoked"]).describe("`active` keys sign and are published in the JWKS; a revoked agent's key is `revoked` and no longer published."),
  createdAt: isoDate,
});

export const agentSchema = z.object({
  object: z.literal("agent"),
  id: z.uuid(),
  agentId: z.string().describe("The passport's public id, `agt_…`: the `sub` of its provenance tokens."),
  display: z.string(),
  description: z.string().nullable(),
  status: z.enum(["active", "suspended", "revoked"]).describe("Only an `active` agent signs. Sends through a key or inbox bound to a suspended or revoked agent are refused (403 `not_permitted`), never sent unsigned."),
  keys: z.array(agentKeySchema),
  bindings: z.object({ apiKeyIds: z.array(z.uuid()), inboxIds: z.array(z.uuid()) }),
  createdAt: isoDate,
  updatedAt: isoDate,
  revokedAt: isoDate.nullable(),
});

const params = z.strictObject({ agentId: z.string().min(1).max(64) });
const one = z.object({ agent: agentSchema });

export const listAgents = defineContract({
  id: "listAgents",
  method: "GET",
  path: "/v1/agents",
  access: "agents:read",
  tag,
  summary: "List agent passports",
  description: "Newest first; `status` filters.",
  query: z.strictObject({ ...paginationQuery(), status: z.enum(["active", "suspended", "revoked"]).optional() }),
  response: z.object({ agents: z.array(agentSchema), pagination: paginationSchema }),
});

export const createAgent = defineContract({
  id: "createAgent",
  method: "POST",
  path: "/v1/agents",
  access: "agents:write",
  tag,
  summary: "Create an agent passport",
  description: "Makes the passport and its Ed25519 signing key (kept encrypted at rest; the public half is published in `GET /v1/agents/jwks` at once).",
  body: z.strictObject({ display, description: description.nullable().optional() }),
  example: { display: "Support triage agent", description: "Answers first-line support mail." },
  response: one,
});

export const getAgent = defineContract({
  id: "getAgent",
  method: "GET",
  path: "/v1/agents/{agentId}",
  access: "agents:read",
  tag,
  summary: "Get an agent passport",
  description: "By `agt_` id or UUID, with its keys and bindings.",
  params,
  response: one,
});

export const updateAgent = defineContract({
  id: "updateAgent",
  method: "PATCH",
  path: "/v1/agents/{agentId}",
  access: "agents:write",
  tag,
  summary: "Update an agent passport",
  description:
    "Changes `display`, `description` or `status`: `active` ↔ `suspended`, or `revoked` (as DELETE does). A revoked passport is final: any change to it is a 409.",
  params,
  body: z.strictObject({ display: display.optional(), description: description.nullable().optional(), status: z.enum(["active", "suspended", "revoked"]).optional() }),
  example: { status: "suspended" },
  errors: ["conflict"],
  response: one,
});

export const revokeAgent = defineContract({
  id: "revokeAgent",
  method: "DELETE",
  path: "/v1/agents/{agentId}",
  access: "agents:write",
  tag,
  summary: "Revoke an agent passport",
  description:
    "Final: the passport is `revoked` and its signing key too (no longer in the JWKS; `POST /v1/agents/verify` reports its tokens as signed by a revoked key). Its bindings stay, so keys and inboxes bound to it cannot send until bound elsewhere or unbound. Revoking a revoked passport changes nothing.",
  params,
  response: one,
});

export const bindAgent = defineContract({
  id: "bindAgent",
  method: "POST",
  path: "/v1/agents/{agentId}/bind",
  access: "agents:write",
  tag,
  summary: "Bind an API key or inbox to an agent",
  description:
    "Every message sent with the key or from the inbox is then the agent's and carries its `X-Svc-Provenance`. A key or inbox belongs to at most one agent: binding it again moves it. With `unbind: true` the named key or inbox is released from this agent instead (`bound: false`). When a send's key and inbox are bound to different agents, the key's agent signs.",
  params,
  body: z
    .strictObject({
      apiKeyId: z.uuid().nullable().optional(),
      inboxId: z.uuid().nullable().optional(),
      unbind: z.boolean().default(false),
    })
    .refine((b) => Boolean(b.apiKeyId || b.inboxId), { message: "Give an apiKeyId, an inboxId or both.", path: ["apiKeyId"] }),
  example: { apiKeyId: "00000000-0000-0000-0000-000000000000" },
  errors: ["conflict"],
  response: z.object({ agentId: z.string(), bound: z.boolean(), apiKeyId: z.uuid().nullable(), inboxId: z.uuid().nullable() }),
});
