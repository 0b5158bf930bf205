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
  /** The stored `channelMetadata` of an outbound message before any outcome. */
  outboundMetadata(ids: { receiptId: string }): Record<string, unknown>;
  /** The stored `channelMetadata` of an internal recipient's copy (may hold internal keys; never shown). */
  copyMetadata(ids: { receiptId: string; senderInboxId: string }): Record<string, unknown>;
  /**
   * When a send names no channel: whether this channel takes it (its recipients fit), and its rank
   * among the channels that would (higher first); null when the channel is only ever chosen by name.
   */
  byDefault: { rank: number; takes(send: Pick<ResolvedSend, "recipients" | "internal">): boolean } | null;
  /** Where mail of this channel arrives from outside the service (email: the SMTP receiver's entry), or null. */
  receive: ((raw: Buffer, envelope: InboundEnvelope) => Promise<unknown>) | null;
}

export const defineChannel = (adapter: ChannelAdapter) => adapter;
