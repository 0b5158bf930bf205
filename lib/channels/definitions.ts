import { z } from "zod";
import { a2aDefinition } from "./a2a/definition";
import { emailDefinition } from "./email/definition";
import { telegramDefinition } from "./telegram/definition";
import { slackDefinition } from "./slack/definition";
import { smsDefinition } from "./sms/definition";

/**
 * The channel registry's definitions: the only list of channels. The `channel` enums of the
 * database schema, the contracts and the OpenAPI document derive from it; a new channel adds its
 * folder and one entry here (docs/ARCHITECTURE.md, "Add a channel").
 */
export const CHANNEL_DEFINITIONS = [
  emailDefinition,
  a2aDefinition,
  telegramDefinition,
  slackDefinition,
  smsDefinition,
] as const;

export type ChannelId = (typeof CHANNEL_DEFINITIONS)[number]["id"];

export const CHANNEL_IDS = CHANNEL_DEFINITIONS.map((d) => d.id) as [ChannelId, ...ChannelId[]];

/** `z.enum` of the channel ids, for contracts. */
export const channelIdSchema = z.enum(CHANNEL_IDS);

/** The channel an inbox's own address is connected on (its first connection), and the one broadcasts go out over. */
export const INBOX_ADDRESS_CHANNEL = emailDefinition.id;

/**
 * Contact handle kinds that are no channel of this deployment (yet): a phone number, a postal
 * address, and the channels still to come. When one becomes a channel its kind moves into its
 * definition (`handleKinds`, `handle`); the contacts API takes every kind of `HANDLE_KINDS`.
 */
export const CONTACT_ONLY_HANDLE_KINDS = [
  { kind: "phone", example: "+14155550100" },
  { kind: "postal", example: null },
] as const;

/**
 * Inbox connections of channels still to come, as the console lists them (a phone number today).
 * When the channel lands, its definition's `connection` replaces the entry (an id that is a
 * channel's is left out here).
 */
export const PLANNED_CONNECTIONS = [
  { id: "sms", label: "Phone number", none: "No number", note: "Phone numbers come with the SMS channel." },
].filter((p) => !(CHANNEL_IDS as readonly string[]).includes(p.id));

type ContactOnlyKind = (typeof CONTACT_ONLY_HANDLE_KINDS)[number]["kind"];
export type HandleKind = ChannelId | ContactOnlyKind;

/** Every contact handle kind: the channels' own, then the contact-only ones not (yet) a channel. */
export const HANDLE_KINDS = [
  ...CHANNEL_IDS,
  ...CONTACT_ONLY_HANDLE_KINDS.map((k) => k.kind).filter((k) => !(CHANNEL_IDS as readonly string[]).includes(k)),
] as [HandleKind, ...HandleKind[]];

/** An example value of a handle kind (the console's placeholder), or null for kinds without a one-line value (postal). */
export function handleExample(kind: string): string | null {
  const d = CHANNEL_DEFINITIONS.find((c) => c.id === kind);
  if (d) return d.handle.example;
  return CONTACT_ONLY_HANDLE_KINDS.find((k) => k.kind === kind)?.example ?? null;
}

/** The handle kinds that are message addresses of some channel: a contact's messages are those from or to them. */
export const MESSAGE_HANDLE_KINDS = [...new Set(CHANNEL_DEFINITIONS.flatMap((d) => d.handleKinds))] as HandleKind[];

/**
 * Every channel's request options (`ChannelDefinition.options`) as one shape, for the send
 * contract; the first channel declaring a field defines its schema.
 */
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
export const CHANNEL_OPTION_FIELDS = Object.assign(
  {},
  ...[...CHANNEL_DEFINITIONS].reverse().map((d) => d.options.shape),
) as UnionToIntersection<(typeof CHANNEL_DEFINITIONS)[number]["options"]["shape"]>;

/** The channels whose options include `field`. */
export const channelsTakingOption = (field: string): ChannelId[] =>
  CHANNEL_DEFINITIONS.filter((d) => field in d.options.shape).map((d) => d.id);

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
