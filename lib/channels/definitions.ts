import { z } from "zod";
import { a2aDefinition } from "./a2a/definition";
import { emailDefinition } from "./email/definition";

/**
 * The channel registry's definitions: the only list of channels. The `channel` enums of the
 * database schema, the contracts and the OpenAPI document derive from it; a new channel adds its
 * folder and one entry here (docs/ARCHITECTURE.md, "Add a channel").
 */
export const CHANNEL_DEFINITIONS = [emailDefinition, a2aDefinition] as const;

export type ChannelId = (typeof CHANNEL_DEFINITIONS)[number]["id"];

export const CHANNEL_IDS = CHANNEL_DEFINITIONS.map((d) => d.id) as [ChannelId, ...ChannelId[]];

/** `z.enum` of the channel ids, for contracts. */
export const channelIdSchema = z.enum(CHANNEL_IDS);

const byId = new Map<string, (typeof CHANNEL_DEFINITIONS)[number]>(CHANNEL_DEFINITIONS.map((d) => [d.id, d]));

export function channelDefinition(id: string) {
  const d = byId.get(id);
  if (!d) throw new Error(`unknown channel ${id}`);
  return d;
}

/**
 * A message's `channelMetadata` as a caller may see it: parsed by its channel's public schema,
 * which drops every key the schema does not name (`senderInboxId`, `internal`, …).
 */
export function publicChannelMetadata(
  channel: string,
  stored: Record<string, unknown> | null | undefined,
): Record<string, unknown> | null {
  if (stored === null || stored === undefined) return null;
  const parsed = channelDefinition(channel).metadata.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

/**
 * The response schema of `channelMetadata`: the union of every channel's public schema (strict, so
 * a response carrying any other key fails its schema instead of passing it on), or null.
 */
export const channelMetadataSchema = z
  .union(
    CHANNEL_DEFINITIONS.map((d) => z.strictObject(d.metadata.shape)) as unknown as [
      z.ZodObject,
      z.ZodObject,
      ...z.ZodObject[],
    ],
  )
  .nullable()
  .describe(
    "Per channel: the public metadata of the message's `channel` (keys outside the channel's schema never appear).",
  );
