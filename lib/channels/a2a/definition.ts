import { z } from "zod";
import { defineChannelDefinition } from "../definition";
import { mailOptions } from "../fields";

/** The a2a channel's public `channelMetadata` (the spec's `receiptId`, `provenance`, `provenanceVerified`). */
export const a2aMetadataSchema = z.object({
  receiptId: z.string().nullable(),
  provenance: z
    .string()
    .nullable()
    .describe(
      "The sending agent's `X-Svc-Provenance` token (a compact JWS; verify it with `POST /v1/agents/verify` or against `GET /v1/agents/jwks`); null when the send was no agent's.",
    ),
  provenanceVerified: z
    .boolean()
    .describe("True when the token verified against the agent's published key and the content as delivered."),
});

const address = z.email();

export const a2aDefinition = defineChannelDefinition({
  id: "a2a",
  label: "Agent-to-agent",
  metadata: a2aMetadataSchema,
  inSendResponse: true,
  badge: "a2a",
  options: mailOptions,
  handleKinds: ["a2a", "email"],
  handle: {
    normalize: (value) => (address.safeParse(value.trim()).success ? value.trim().toLowerCase() : null),
    hint: "Enter an email address for an a2a handle.",
    example: "agent@svc.localhost",
  },
});
