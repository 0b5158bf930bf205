import { z } from "zod";
import { defineChannelDefinition } from "../definition";
import { mailOptions } from "../fields";

/**
 * The email channel's public `channelMetadata`: what a caller may see. Inbound mail carries the
 * receiving side's verdicts, an outbound send its provider and latest delivery outcome. Anything
 * else stored with a message (the internal-copy markers, for one) never leaves through this shape.
 */
export const emailMetadataSchema = z.object({
  provider: z.string().nullable().optional(),
  providerMessageId: z.string().nullable().optional(),
  lastEventType: z.string().nullable().optional(),
  lastEventAt: z.string().nullable().optional(),
  bouncedAt: z.string().nullable().optional(),
  complainedAt: z.string().nullable().optional(),
  sesMessageId: z.string().nullable().optional(),
  authentication: z.record(z.string(), z.unknown()).nullable().optional(),
  spf: z.string().nullable().optional(),
  dkim: z.string().nullable().optional(),
  dmarc: z.string().nullable().optional(),
  mailFrom: z.string().nullable().optional(),
  remoteAddress: z.string().nullable().optional(),
  helo: z.string().nullable().optional(),
  provenance: z
    .string()
    .nullable()
    .optional()
    .describe("An agent's `X-Svc-Provenance` token: on an agent's send, and on inbound mail that carried one."),
  provenanceVerified: z
    .boolean()
    .nullable()
    .optional()
    .describe("Whether that token verified (signature against the issuer's JWKS, Message-ID and body hash)."),
  provenanceAgentId: z
    .string()
    .nullable()
    .optional()
    .describe("The `agt_` id the token names (its `sub`), when it verified."),
  provenanceIssuer: z
    .string()
    .nullable()
    .optional()
    .describe("The deployment that issued the token (its `iss`), when it verified."),
  provenanceError: z
    .string()
    .nullable()
    .optional()
    .describe(
      "Why an inbound token did not verify: `malformed`, `unknown_key`, `bad_signature`, `wrong_issuer`, `body_mismatch`, `message_id_mismatch` or `jwks_unavailable`.",
    ),
});

const address = z.email();

export const emailDefinition = defineChannelDefinition({
  id: "email",
  label: "Email",
  metadata: emailMetadataSchema,
  inSendResponse: false,
  badge: null,
  // DMARC pass means the From domain is aligned with SPF or DKIM; an internal copy is an inbox's own send.
  senderAuth: (m) =>
    m.internal === true || typeof m.senderInboxId === "string"
      ? "authenticated"
      : m.dmarc === "pass"
        ? "authenticated"
        : m.dmarc === "fail"
          ? "failed"
          : "unknown",
  options: mailOptions,
  handleKinds: ["email", "a2a"],
  handle: {
    normalize: (value) => (address.safeParse(value.trim()).success ? value.trim().toLowerCase() : null),
    hint: "Enter an email address for an email handle.",
    example: "ada@example.com",
  },
  connection: {
    label: "Email address",
    none: "No address",
    connect: {
      kind: "address",
      note: "Given when the inbox is created; agent-to-agent messages use it too.",
    },
  },
});
