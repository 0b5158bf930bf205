import type { z } from "zod";

/**
 * What the rest of the system needs to know about a channel without loading its delivery code:
 * its id and the public schema of its `channelMetadata`. Pure data and zod, so the database
 * schema, the contracts and the OpenAPI document can derive from it.
 */
export interface ChannelDefinition<Id extends string = string, M extends z.ZodObject = z.ZodObject> {
  id: Id;
  label: string;
  /** The public `channelMetadata`: an object schema; keys outside it are stripped on the way out. */
  metadata: M;
  /** Whether a send's response shows the message's `channelMetadata` (else `null` there). */
  inSendResponse: boolean;
  /** The console's badge on this channel's messages in lists, or null for none (email, the plain case). */
  badge: string | null;
}

export const defineChannelDefinition = <Id extends string, M extends z.ZodObject>(d: ChannelDefinition<Id, M>) => d;
