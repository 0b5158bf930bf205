import { a2a } from "./a2a";
import { CHANNEL_DEFINITIONS, type ChannelId } from "./definitions";
import { email } from "./email";
import type { ResolvedSend } from "@/lib/messages/stages/draft";
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

const BY_DEFAULT = CHANNELS.filter((c) => c.byDefault !== null).sort(
  (a, b) => (b.byDefault?.rank ?? 0) - (a.byDefault?.rank ?? 0),
);

/**
 * The channel of a send that names none: the highest-ranked adapter whose `byDefault.takes`
 * accepts the recipients (today a2a when every recipient is an inbox of this service, else email).
 */
export function defaultChannel(send: Pick<ResolvedSend, "recipients" | "internal">): ChannelAdapter {
  const channel = BY_DEFAULT.find((c) => c.byDefault?.takes(send));
  if (!channel) throw new Error("no channel takes these recipients");
  return channel;
}

export type { ChannelAdapter } from "./types";
