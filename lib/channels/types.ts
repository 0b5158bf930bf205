import type { DbOrTx } from "@/db";
import type { InboundEnvelope } from "@/lib/messages/receive";
import type { RenderedSend, ResolvedSend, SignedSend } from "@/lib/messages/stages/draft";
import type { OutboundMail, SendResult } from "@/lib/providers/mail";
import type { ChannelDefinition } from "./definition";
import type { ChannelId } from "./definitions";

/**
 * A channel: one object per `lib/channels/<id>/index.ts`, registered in `lib/channels/index.ts`.
 * The send stages call it; nothing else branches on a channel id.
 */
export interface ChannelAdapter extends ChannelDefinition<ChannelId> {
  /** The channel's rules for a resolved send (recipients, options); throws an `ApiError` naming the field. */
  validate(send: RenderedSend): void;
  /** The signed wire form for the send's external recipients (the sign stage calls it only when there are some). */
  compose(db: DbOrTx, send: SignedSend): Promise<Buffer>;
  /** Hands a committed message's wire form to the outside world (from its outbox entry, after the commit). */
  deliver: ((mail: OutboundMail) => Promise<SendResult>) | null;
  /** The stored `channelMetadata` of an outbound message before any outcome (`provenance`: the agent's token, when the send is an agent's). */
  outboundMetadata(ids: { receiptId: string } & ProvenanceMark): Record<string, unknown>;
  /** The stored `channelMetadata` of an internal recipient's copy (may hold internal keys; never shown). */
  copyMetadata(ids: { receiptId: string; senderInboxId: string } & ProvenanceMark): Record<string, unknown>;
  /**
   * When a send names no channel: whether this channel takes it (its recipients fit), and its rank
   * among the channels that would (higher first); null when the channel is only ever chosen by name.
   */
  byDefault: { rank: number; takes(send: Pick<ResolvedSend, "recipients" | "internal">): boolean } | null;
  /** Where mail of this channel arrives from outside the service (email: the SMTP receiver's entry), or null. */
  receive: ((raw: Buffer, envelope: InboundEnvelope) => Promise<unknown>) | null;
}

/** An agent's `X-Svc-Provenance` token on a send (null when the send is no agent's) and whether it verified. */
export interface ProvenanceMark {
  provenance: string | null;
  provenanceVerified: boolean;
}

/** The provenance keys of a channel's stored metadata: present only when the send is an agent's. */
export const provenanceKeys = (p: ProvenanceMark) =>
  p.provenance ? { provenance: p.provenance, provenanceVerified: p.provenanceVerified } : {};

export const defineChannel = (adapter: ChannelAdapter) => adapter;
