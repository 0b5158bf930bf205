import { INBOX_MODES } from "@/db/schema/messaging";
import { CHANNEL_DEFINITIONS } from "@/lib/channels/definitions";
import type { MessagePresentation } from "@/lib/channels/definition";

/**
 * Words the console shows for codes: a channel's name comes from the channel registry's
 * definitions (its `label`, the only list of channels); an inbox mode is said in a sentence.
 */
const CHANNEL_LABELS = new Map<string, string>(CHANNEL_DEFINITIONS.map((d) => [d.id, d.label]));

/** "Agent-to-agent" for `a2a`, "Email" for `email`; a code the registry does not define (a contact handle's `sms`) as it is. */
export function channelLabel(id: string): string {
  return CHANNEL_LABELS.get(id) ?? id;
}

export type InboxMode = (typeof INBOX_MODES)[number];

/** What each inbox mode says about who answers the inbox's mail. */
export const INBOX_MODE_WORDS: Record<InboxMode, { label: string; description: string }> = {
  agent: {
    label: "Agent",
    description: "An agent (software) reads and answers this inbox's mail through the API, webhooks or MCP.",
  },
  human: {
    label: "Human",
    description: "People read and answer this inbox's mail, in the console or their own tools.",
  },
  hybrid: {
    label: "Hybrid",
    description: "An agent handles this inbox's mail and people step in when it needs them.",
  },
};

/** What the mode changes, said where it is chosen: it labels the inbox for routing; mail flows the same. */
export const INBOX_MODE_NOTE =
  "The mode says who answers the inbox, for your own routing (it is in the API's inbox object); the service stores, sends and delivers mail the same way in every mode.";

export const INBOX_MODE_OPTIONS = INBOX_MODES.map((mode) => ({ value: mode, ...INBOX_MODE_WORDS[mode] }));

/** A message's channel facts and buttons for the conversation view (its channel's `present`), or nothing to show. */
export function channelPresentation(channel: string, metadata: Record<string, unknown> | null): MessagePresentation {
  const present = CHANNEL_DEFINITIONS.find((d) => d.id === channel)?.present;
  return present && metadata ? present(metadata) : { facts: [], buttons: [] };
}

/** An inbound interaction (a button's tap, from its ledger event) in words, by its channel. */
export function interactionWords(channel: unknown, type: string, data: Record<string, unknown>): string {
  const words = CHANNEL_DEFINITIONS.find((d) => d.id === channel)?.interaction;
  return words ? words(type, data) : type.replace(/_/g, " ");
}
