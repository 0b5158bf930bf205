import { a2a } from "./a2a";
import { CHANNEL_DEFINITIONS, CHANNEL_OPTION_FIELDS, type ChannelId, channelsTakingOption } from "./definitions";
import { email } from "./email";
import { telegram } from "./telegram";
import { slack } from "./slack";
import { sms } from "./sms";
import { invalidRequest } from "@/lib/core/errors";
import { customHeaders } from "./email/headers";
import type { ChannelAdapter as Port, DraftFacts, SenderConnection } from "./port";

/** A registered channel's adapter. */
export type ChannelAdapter = Port<ChannelId>;

/**
 * The channel registry: one adapter per channel (`lib/channels/<id>/index.ts`), keyed by the ids of
 * the definitions (`definitions.ts`, the one list of channels, from which the enums of the schema,
 * contracts, OpenAPI document, console and CLI derive). The type makes this map follow that list:
 * a definition without its adapter does not compile.
 */
const ADAPTER_OF: { [K in ChannelId]: Port<K> } = { email, a2a, telegram, slack, sms };

export const CHANNELS: readonly ChannelAdapter[] = CHANNEL_DEFINITIONS.map((d) => ADAPTER_OF[d.id]);

export function channelAdapter(id: string): ChannelAdapter {
  const adapter = (ADAPTER_OF as Record<string, ChannelAdapter | undefined>)[id];
  if (!adapter) throw new Error(`unknown channel ${id}`);
  return adapter;
}

export const CHANNELS_BY_DEFAULT: readonly ChannelAdapter[] = CHANNELS.filter((c) => c.byDefault !== null).sort(
  (a, b) => (b.byDefault?.rank ?? 0) - (a.byDefault?.rank ?? 0),
);

/**
 * The channel of a send that names none: the highest-ranked adapter whose `byDefault.takes`
 * accepts the recipients (today a2a when every recipient is an inbox of this service, else email).
 */
export function defaultChannel(send: Pick<DraftFacts, "recipients" | "internal" | "senderChannels">): ChannelAdapter {
  const channel = CHANNELS_BY_DEFAULT.find((c) => c.byDefault?.takes(send));
  if (!channel) throw new Error("no channel takes these recipients");
  return channel;
}

/** The contact handle kinds a recipient stands for before the channel is chosen: the last-resort channel's. */
export const DEFAULT_HANDLE_KINDS = (CHANNELS_BY_DEFAULT.at(-1) ?? CHANNELS[0])?.handleKinds ?? [];

/** The channel that parses a provider's callbacks (`POST /v1/providers/{provider}/events`), or undefined. */
export const channelOfProvider = (provider: string): ChannelAdapter | undefined =>
  CHANNELS.find((c) => c.providers.includes(provider));

/**
 * A message's custom `headers` (the request's, checked: none the service or receiving servers set,
 * no line breaks), for the message's `headers` column; each problem names `headers.<Name>`.
 */
export const requestHeaders = customHeaders;

/**
 * Refuses a request option of another channel than the send's (400 naming the field): the send
 * contract carries every channel's options, each channel takes only its own.
 */
export function refuseForeignOptions(channel: ChannelAdapter, input: Record<string, unknown>): void {
  for (const field of Object.keys(CHANNEL_OPTION_FIELDS)) {
    if (input[field] === undefined || field in channel.options.shape) continue;
    const takers = channelsTakingOption(field).join(", ");
    throw invalidRequest(`\`${field}\` is an option of ${takers}, not of the ${channel.label} channel.`, field);
  }
}

/** The sending side of a send from `inbox`: its address connection. */
export const senderOf = (inbox: {
  id: string;
  orgId: string;
  address: string;
  displayName: string | null;
  domainId: string | null;
}): SenderConnection => ({
  inboxId: inbox.id,
  orgId: inbox.orgId,
  address: inbox.address,
  displayName: inbox.displayName,
  domainId: inbox.domainId,
});
