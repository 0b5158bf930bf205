import { a2a } from "./a2a";
import { CHANNEL_DEFINITIONS, type ChannelId } from "./definitions";
import { email } from "./email";
import type { ChannelAdapter } from "./types";

/**
 * The channel registry: one adapter per channel (`lib/channels/<id>/index.ts`). Its ids are the
 * definitions' (`definitions.ts`), from which the enums of the schema, contracts and OpenAPI derive.
 */
const ADAPTERS: Record<ChannelId, ChannelAdapter> = { email, a2a };

export const CHANNELS: readonly ChannelAdapter[] = CHANNEL_DEFINITIONS.map((d) => ADAPTERS[d.id]);

export function channelAdapter(id: string): ChannelAdapter {
  const adapter = (ADAPTERS as Record<string, ChannelAdapter | undefined>)[id];
  if (!adapter) throw new Error(`unknown channel ${id}`);
  return adapter;
}

/** The channel of a send that names none: a2a when every recipient is an inbox of this service, else email. */
export const defaultChannel = (allInternal: boolean): ChannelAdapter => (allInternal ? a2a : email);

export type { ChannelAdapter } from "./types";
