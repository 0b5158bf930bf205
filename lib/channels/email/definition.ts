import { z } from "zod";
import { defineChannelDefinition } from "../definition";

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
});

export const emailDefinition = defineChannelDefinition({ id: "email", label: "Email", metadata: emailMetadataSchema, inSendResponse: false, badge: null });
