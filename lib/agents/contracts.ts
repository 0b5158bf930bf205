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
  status: z
    .enum(["active", "retired", "revoked"])
    .describe(
      "`active` keys sign and are published in the JWKS; a revoked agent's key is `revoked` and no longer published.",
    ),
  createdAt: isoDate,
});

export const agentSchema = z.object({
  object: z.literal("agent"),
  id: z.uuid(),
  agentId: z.string().describe("The passport's public id, `agt_…`: the `sub` of its provenance tokens."),
  display: z.string(),
  description: z.string().nullable(),
  status: z
    .enum(["active", "suspended", "revoked"])
    .describe(
      "Only an `active` agent signs. Sends through a key or inbox bound to a suspended or revoked agent are refused (403 `not_permitted`), never sent unsigned.",
    ),
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
  description:
    "Makes the passport and its Ed25519 signing key (kept encrypted at rest; the public half is published in `GET /v1/agents/jwks` at once).",
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
  body: z.strictObject({
    display: display.optional(),
    description: description.nullable().optional(),
    status: z.enum(["active", "suspended", "revoked"]).optional(),
  }),
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
    .refine((b) => Boolean(b.apiKeyId || b.inboxId), {
      message: "Give an apiKeyId, an inboxId or both.",
      path: ["apiKeyId"],
    }),
  example: { apiKeyId: "00000000-0000-0000-0000-000000000000" },
  errors: ["conflict"],
  response: z.object({
    agentId: z.string(),
    bound: z.boolean(),
    apiKeyId: z.uuid().nullable(),
    inboxId: z.uuid().nullable(),
  }),
});

export const jwksKeySchema = z.object({
  kty: z.literal("OKP"),
  crv: z.literal("Ed25519"),
  alg: z.literal("EdDSA"),
  kid: z.string(),
  x: z.string(),
  use: z.literal("sig"),
});

export const getAgentsJwks = defineContract({
  id: "getAgentsJwks",
  method: "GET",
  path: "/v1/agents/jwks",
  access: "public",
  tag,
  summary: "Public signing keys (JWKS)",
  description:
    "Every active public signing key of this deployment: each agent passport's key (active and suspended agents; a revoked agent's key is withdrawn) and the service's own artifact-signing key (audit export manifests, deletion certificates). `kid` is the RFC 7638 thumbprint. Verify a provenance token's JWS or a signed artifact against these with any Ed25519 implementation.",
  response: z.object({ keys: z.array(jwksKeySchema) }),
});

const deliveredContentSchema = z.strictObject({
  subject: z.string().nullable(),
  text: z.string().nullable(),
  html: z.string().nullable(),
  attachments: z
    .array(
      z.strictObject({ filename: z.string(), contentType: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
    )
    .max(100)
    .optional(),
});

export const verifyAgentSignature = defineContract({
  id: "verifyAgentSignature",
  method: "POST",
  path: "/v1/agents/verify",
  access: "public",
  tag,
  summary: "Verify a provenance token or a signed artifact",
  description:
    "Give exactly one of `provenance` (an `X-Svc-Provenance` token), `message` (a raw RFC 5322 message: its `X-Svc-Provenance` header is verified, body hash included) or `artifact` (a SignedArtifact such as an audit export manifest). With `provenance`, `message` or `content` (the delivered a2a content) also checks the body hash. Answers which agent or key signed it and their status now. `valid` is true only when the signature verifies against a key of this deployment that is not revoked, the token names the agent that key belongs to and this deployment as issuer, and the body (when given) matches.",
  body: z
    .strictObject({
      provenance: z.string().min(1).max(4096).optional(),
      message: z.string().min(1).max(10_000_000).optional(),
      content: deliveredContentSchema.optional(),
      artifact: z.record(z.string(), z.unknown()).optional(),
    })
    .refine(
      (b) =>
        [b.provenance, b.artifact, b.provenance ? undefined : b.message].filter((x) => x !== undefined).length === 1,
      {
        message: "Give exactly one of provenance, message or artifact.",
        path: ["provenance"],
      },
    )
    .refine((b) => !(b.content && (b.artifact || b.message)), {
      message: "content goes with provenance only.",
      path: ["content"],
    }),
  example: { provenance: "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhZ3RfeCJ9.c2ln" },
  idempotent: false,
  maxBodyBytes: 12_000_000,
  response: z.object({
    valid: z.boolean(),
    type: z.enum(["provenance", "artifact"]),
    reason: z
      .enum([
        "malformed",
        "unsigned",
        "unknown_key",
        "bad_signature",
        "wrong_issuer",
        "wrong_agent",
        "body_mismatch",
        "key_revoked",
        "no_provenance",
      ])
      .nullable()
      .describe("Why `valid` is false; null when it is true."),
    kid: z.string().nullable(),
    signer: z
      .object({
        type: z.enum(["agent", "service"]),
        agentId: z.string().nullable().describe("The `agt_` id of the agent whose key it is (agent keys)."),
        display: z.string().nullable(),
        status: z.enum(["active", "suspended", "revoked"]).nullable().describe("The agent's status now (agent keys)."),
        keyStatus: z.enum(["active", "retired", "revoked"]),
      })
      .nullable()
      .describe("The key's owner, when the key is one of this deployment's (whatever the verdict)."),
    claims: z
      .object({
        iss: z.string(),
        sub: z.string(),
        iat: z.number(),
        msg: z.string(),
        mid: z.string(),
        ch: z.string(),
        bhc: z.string(),
        bh: z.string(),
      })
      .nullable()
      .describe("The provenance token's claims, once its signature verified."),
    bodyChecked: z.boolean().describe("Whether a body was given and its hash compared."),
  }),
});

const thresholdsSchema = z
  .object({
    throttleBounceRate: z.number(),
    quarantineBounceRate: z.number(),
    throttleComplaintRate: z.number(),
    quarantineComplaintRate: z.number(),
    minSends: z.number().int().describe("Recipients sent to in the window before the rates are judged."),
    throttledSendsPerHour: z.number().int().describe("Sends per rolling hour a throttled agent may make."),
  })
  .describe("From the deployment's configuration (REPUTATION_* environment variables).");

export const agentReputationSchema = z.object({
  agentId: z.string(),
  state: z.enum(["healthy", "throttled", "quarantined", "review"]),
  verdict: z.enum(["allow", "throttle", "block", "review"]),
  shouldSend: z
    .boolean()
    .describe("False when quarantined (sends made as the agent are refused), or when the passport is not active."),
  window: z
    .object({
      hours: z.number().int(),
      from: isoDate,
      to: isoDate,
      sends: z.number().int(),
      bounces: z.number().int(),
      complaints: z.number().int(),
    })
    .describe("The rolling window (24 hours, or since the last clear): recipients sent to, hard bounces, complaints."),
  rates: z
    .object({ bounceRate: z.number(), complaintRate: z.number() })
    .describe("Per recipient sent to in the window."),
  thresholds: thresholdsSchema,
  lastReason: z.string().nullable(),
  lastTrippedAt: isoDate.nullable(),
  lastEvaluatedAt: isoDate.nullable(),
  overrideLocked: z
    .boolean()
    .describe(
      "Set by a clear with `overrideLocked`: the state stays `healthy` whatever the rates until a clear without it.",
    ),
});

export const listAgentReputation = defineContract({
  id: "listAgentReputation",
  method: "GET",
  path: "/v1/agents/reputation",
  access: "agents:read",
  tag,
  summary: "Reputation of every agent (fleet list)",
  description: "Every agent of the organization, oldest first, evaluated now.",
  response: z.object({
    window: z.object({ hours: z.number().int() }),
    thresholds: thresholdsSchema,
    agents: z.array(agentReputationSchema),
  }),
});

export const getAgentReputation = defineContract({
  id: "getAgentReputation",
  method: "GET",
  path: "/v1/agents/{agentId}/reputation",
  access: "agents:read",
  tag,
  summary: "An agent's reputation",
  description:
    "Rolling 24-hour bounce and complaint rates of the agent's sends (per recipient) and its state: `healthy`; `throttled` (a rate over its throttle threshold: sends per hour capped, more are 429); `quarantined` (over a quarantine threshold: sends refused with 403 until cleared; it does not lift by itself); `review` (cleared by an operator: only outcomes since the clear count, judged as usual after a full window).",
  params,
  response: agentReputationSchema,
});

export const clearAgentReputation = defineContract({
  id: "clearAgentReputation",
  method: "POST",
  path: "/v1/agents/{agentId}/reputation/clear",
  access: "agents:write",
  tag,
  summary: "Clear an agent's reputation",
  description:
    "After the cause is fixed: outcomes before now stop counting and the agent may send again, in `review` (or `healthy` if it was). With `overrideLocked: true` the state is set `healthy` and locked there whatever the rates, until a clear without it.",
  params,
  body: z.strictObject({
    overrideLocked: z.boolean().default(false),
    reason: z.string().trim().min(1).max(500).optional(),
  }),
  example: { overrideLocked: false, reason: "List cleaned of stale addresses." },
  response: z.object({
    agentId: z.string(),
    state: z.enum(["healthy", "throttled", "quarantined", "review"]),
    shouldSend: z.boolean(),
    overrideLocked: z.boolean(),
    reputation: agentReputationSchema.nullable(),
  }),
});
