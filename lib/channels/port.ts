import type { DbOrTx } from "@/db";
import type { domains } from "@/db/schema";
import type { ChannelDefinition } from "./definition";
import type { DeliveryOutcome } from "./outcomes";

export { type DeliveryOutcome, foldOutcome, OUTCOME_KINDS, type OutcomeKind } from "./outcomes";

/**
 * The channel port: the neutral shapes the message pipeline (`lib/messages`) and every channel
 * adapter (`lib/channels/<id>/`) meet on. `lib/messages` imports this file and the registry
 * (`lib/channels/index.ts`), never a channel's folder; this file imports nothing of `lib/messages`.
 *
 * A send becomes an `OutboundDraft`, its adapter `compose`s the `WireForm` (or nothing, when every
 * recipient is an inbox of this service) and `deliver`s it after the commit, answering with a
 * `DeliveryReceipt` and `DeliveryOutcome`s; later provider callbacks become outcomes too. Inbound
 * traffic of every channel arrives as `InboundMessage`s, whatever its wire was.
 */

/** What the channel's transport answered when it took the wire form. */
export interface DeliveryReceipt {
  provider: string;
  providerMessageId: string | null;
  /** Outcomes known at once (the embedded email transport's Delivery); real providers report them later. */
  outcomes: DeliveryOutcome[];
  /** The channel's own facts of the handoff for its `outcomeMetadata` (Telegram: how a voice note was made). */
  metadata?: Record<string, unknown>;
}

/** The sending side of a send: the inbox and the connection it goes out over. */
export interface SenderConnection {
  inboxId: string;
  orgId: string;
  /** The connection's address on its channel (email: the inbox's address). */
  address: string;
  displayName: string | null;
  /** The inbox's domain (email signs with its key), when it has one. */
  domainId: string | null;
  /** That domain's row when the send read it ahead with the inbox (lib/messages/stages/read.ts); absent: the channel reads it. */
  domain?: typeof domains.$inferSelect | null;
}

export interface OutboundMedia {
  filename: string | null;
  contentType: string;
  content: Buffer;
}

/** A send as a channel sees it: who, to whom, what, in which conversation, with which channel options. */
export interface OutboundDraft {
  channel: string;
  /** The message's id in this service, and its key in the channel's conversation space (email: the Message-ID). */
  messageId: string;
  messageKey: string;
  from: SenderConnection;
  /** Recipients by role (the channel's addresses, normalized by its `address` schema). */
  to: string[];
  cc: string[];
  bcc: string[];
  /** The recipients outside this service: the ones the wire form is for. */
  external: string[];
  content: { subject: string; text: string | null; html: string | null; media: OutboundMedia[] };
  /** The conversation this message answers: the parent's key and the earlier keys (email: In-Reply-To, References). */
  thread: { inReplyTo: string | null; references: string[] };
  /** The channel's own options of the request (email: headers, replyTo), as its `options` check normalized them. */
  options: Record<string, unknown>;
}

/** What leaves the process for the external recipients: the channel's bytes and its envelope. */
export interface WireForm {
  body: Buffer;
  envelope: { from: string; to: string[] };
  messageKey: string;
}

/** Where inbound traffic came from on the wire (email: the SMTP session). */
export type InboundOrigin = Record<string, unknown>;

/** One message arriving on a channel, as every channel's ingress hands it to the pipeline. */
export interface InboundMessage {
  channel: string;
  /** The connection addresses it arrived at (email: the envelope's recipients): each is an inbox's connection. */
  deliveredTo: string[];
  from: { address: string; name: string | null };
  to: string[];
  cc: string[];
  replyTo: string | null;
  content: {
    subject: string;
    text: string | null;
    html: string | null;
    media: (OutboundMedia & { contentId: string | null; disposition: "attachment" | "inline" })[];
  };
  /** The channel's conversation key of this message and of those it answers: what threads it. */
  thread: { messageKey: string; inReplyTo: string | null; references: string[] };
  /** The channel's stored `channelMetadata` of the message (its public schema decides what is shown). */
  metadata: Record<string, unknown>;
  /** Stored as context only (Slack's ambient store): no `message.received`. */
  silent?: boolean;
}

/** A provider's HTTP callback as the ingress (`POST /v1/providers/{provider}/events`) received it. */
export interface ProviderRequest {
  db: DbOrTx;
  /** The request's headers (a provider's secret or signature header), null when not called over HTTP. */
  headers: Headers | null;
  /** The URL the request was made to, with its query (a signature over the URL: Twilio's), null when not over HTTP. */
  url: string | null;
}

/** A callback's answer in the provider's own format; its media type is one of `receiveProviderEvent`'s `rawReplies`. */
export interface ProviderReply {
  contentType: string;
  body: string;
}

/**
 * Something a person did on a channel that is no message (Telegram: a callback button's tap): it
 * lands as a ledger event (and a webhook delivery) in the inbox connected at `deliveredTo`.
 */
export interface InboundInteraction {
  channel: string;
  type: "button_tap";
  deliveredTo: string;
  from: { address: string; name: string | null };
  /** The provider's id of the message it concerns (the outbound message's `providerMessageId`), when known. */
  providerMessageId: string | null;
  data: Record<string, unknown>;
}

/**
 * What a provider callback became: outcomes of an outbound message, inbound traffic (messages and
 * interactions), a reply the provider needs in its own format (Twilio's voice webhook: the TwiML
 * that answers the call, sent back as it is), or nothing (a subscription confirmation).
 */
export type ProviderEventResult =
  | { providerMessageId: string; outcomes: DeliveryOutcome[] }
  | { reply: ProviderReply }
  | {
      inbound: InboundMessage[];
      interactions: InboundInteraction[];
      /**
       * The provider's own key of this callback (Telegram: `<bot id>:<update_id>`): landed once per key,
       * in the transaction that stores the key (`provider_callbacks`); a redelivery is acknowledged.
       */
      callbackKey?: string;
    }
  | null;

/**
 * Thrown by `deliver` when the provider asks to be called again later (Telegram's 429 with
 * `retry_after`): the message stays `queued` and its outbox entry is retried after that time,
 * never dropped and never counted as a failed attempt.
 */
export class RetryLater extends Error {
  constructor(
    readonly retryAfterMs: number,
    message: string,
  ) {
    super(message);
    this.name = "RetryLater";
  }
}

/** An agent's `X-Svc-Provenance` token on a send (null when the send is no agent's) and whether it verified. */
export interface ProvenanceMark {
  provenance: string | null;
  provenanceVerified: boolean;
}

/** The provenance keys of a channel's stored metadata: present only when the send is an agent's. */
export const provenanceKeys = (p: ProvenanceMark) =>
  p.provenance ? { provenance: p.provenance, provenanceVerified: p.provenanceVerified } : {};

/** A recipient that is an inbox of this service, as the channels see it. */
export interface InternalRecipient {
  status: string;
  address: string;
}

/** What the auto rule and `validate` know of a send: recipients, which are inboxes here, the request's options. */
export interface DraftFacts {
  recipients: string[];
  internal: ReadonlyMap<string, InternalRecipient>;
  scheduled: boolean;
  /** The channels the sending inbox has a connection on (the auto rule's "the inbox has a number"); given to `byDefault.takes`. */
  senderChannels?: readonly string[];
}

/**
 * A channel: one object per `lib/channels/<id>/index.ts`, registered in `lib/channels/index.ts`.
 * The send stages and the ingresses call it; nothing else branches on a channel id.
 */
export interface ChannelAdapter<Id extends string = string> extends ChannelDefinition<Id> {
  /**
   * A recipient as given (after contact references are resolved) in the channel's normal form,
   * or an error message naming what it should be.
   */
  address(raw: string): { ok: true; address: string } | { ok: false; message: string };
  /** The contact handle kinds that stand for a recipient of this channel, first preferred. */
  handleKinds: readonly string[];
  /** The channel's rules for a resolved send (recipients, options); throws an `ApiError` naming the field. */
  validate(send: DraftFacts): void;
  /** A new message's key in the channel's conversation space (email: a Message-ID on the sender's domain). */
  messageKey(from: SenderConnection): string;
  /** The request's thread options in the channel's key space (email: In-Reply-To and References, bracketed). */
  threadOptions(options: Record<string, unknown>): { inReplyTo: string | null; references: string[] };
  /** The wire form for the draft's external recipients (called only when there are some). */
  compose(db: DbOrTx, draft: OutboundDraft): Promise<Buffer>;
  /** Hands a committed message's wire form to the outside world (from its outbox entry, after the commit). */
  deliver: ((wire: WireForm) => Promise<DeliveryReceipt>) | null;
  /** The stored `channelMetadata` of an outbound message before any outcome (`options`: the send's, as in its draft). */
  outboundMetadata(
    ids: { receiptId: string; options?: Record<string, unknown> } & ProvenanceMark,
  ): Record<string, unknown>;
  /** The stored `channelMetadata` of an internal recipient's copy (may hold internal keys; never shown). */
  copyMetadata(ids: { receiptId: string; senderInboxId: string } & ProvenanceMark): Record<string, unknown>;
  /** The outcome for a recipient that is an inbox of this service which does not receive (paused, deleted). */
  unavailable(recipient: string, inboxStatus: string): DeliveryOutcome;
  /** The stored `channelMetadata` after a handoff's receipt and/or outcomes (email: provider, lastEventType, …). */
  outcomeMetadata(
    current: Record<string, unknown> | null,
    update: { receipt?: DeliveryReceipt | null; outcomes: readonly DeliveryOutcome[] },
  ): Record<string, unknown>;
  /**
   * When a send names no channel: whether this channel takes it (its recipients fit), and its rank
   * among the channels that would (higher first); null when the channel is only ever chosen by name.
   */
  byDefault: {
    rank: number;
    takes(send: Pick<DraftFacts, "recipients" | "internal" | "senderChannels">): boolean;
  } | null;
  /** The provider's callbacks (`POST /v1/providers/{provider}/events`) this channel parses, by provider name. */
  providers: readonly string[];
  /**
   * Parses one provider callback into outcomes with the provider's message id they concern, or into
   * inbound messages and interactions; throws an `ApiError` for a callback that does not verify
   * (its signature or secret header). Null: the callback needed nothing stored (a subscription).
   */
  providerEvent:
    | ((provider: string, payload: unknown, request: ProviderRequest) => Promise<ProviderEventResult>)
    | null;
  /**
   * Reads one inbound item off the channel's wire into messages (email: a raw RFC 5322 message and
   * its SMTP envelope). The ingress calls it and hands the result to the pipeline (`lib/messages/receive.ts`).
   */
  receive: ((db: DbOrTx, raw: Buffer, origin: InboundOrigin) => Promise<InboundMessage[]>) | null;
  /**
   * The console's words for an organization's connections on this channel (a bot's @username, a
   * workspace's and app's names), by connection id; absent: the connection's address is its name.
   */
  describeConnections?: (
    db: DbOrTx,
    orgId: string,
    connections: readonly { id: string; address: string }[],
  ) => Promise<Map<string, { name: string; detail: string | null }>>;
}

export const defineChannel = <Id extends string>(adapter: ChannelAdapter<Id>) => adapter;

/** The outcome of a send to a recipient whose inbox cannot take it (paused, deleted): failed, naming why. A channel's `unavailable` when it has no bounce of its own to report. */
export function failedForInbox(recipient: string, inboxStatus: string): DeliveryOutcome {
  return {
    kind: "failed",
    recipient,
    at: new Date(),
    providerType: "failed",
    detail: { reason: `inbox ${inboxStatus}` },
  };
}
