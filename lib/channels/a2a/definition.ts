import { z } from "zod";
import { defineChannelDefinition } from "../definition";

/** The a2a channel's public `channelMetadata` (the spec's `receiptId`, `provenance`, `provenanceVerified`). */
export const a2aMetadataSchema = z.object({
  receiptId: z.string().nullable(),
  provenance: z.unknown().nullable(),
  provenanceVerified: z.boolean(),
});

export const a2aDefinition = defineChannelDefinition({ id: "a2a", label: "Agent-to-agent", metadata: a2aMetadataSchema, inSendResponse: true, badge: "a2a" });
