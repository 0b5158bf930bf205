import type { DbOrTx } from "@/db";
import type { InboundMessage } from "@/lib/channels/port";
import { inboxByConnection } from "@/lib/inboxes/connections";
import type { InboxRow } from "@/lib/inboxes/service";
import { type MessageRow, storeMessage } from "./store";

/** The inbox that receives on `channel` at `address` (its connection's inbox, active), or null. */
export async function receivingInbox(db: DbOrTx, channel: string, address: string): Promise<InboxRow | null> {
  const inbox = await inboxByConnection(db, channel, address);
  return inbox && inbox.status === "active" ? inbox : null;
}

/**
 * Lands inbound messages of any channel (what an ingress read through its adapter's `receive`):
 * each in every inbox connected at an address it was delivered to, with its attachments, threaded
 * by the channel's conversation keys, its sender linked to a contact by handle, emitting
 * `message.received` (one transaction per inbox: a savepoint when `db` is a transaction). Addresses no
 * active inbox receives at are skipped.
 */
export async function landInbound(db: DbOrTx, inbound: readonly InboundMessage[]): Promise<MessageRow[]> {
  const stored: MessageRow[] = [];
  for (const m of inbound) {
    for (const rcpt of m.deliveredTo) {
      const inbox = await receivingInbox(db, m.channel, rcpt);
      if (!inbox) continue;
      const row = await db.transaction((tx) =>
        storeMessage(
          tx,
          {
            orgId: inbox.orgId,
            inboxId: inbox.id,
            direction: "inbound",
            status: "received",
            channel: m.channel as MessageRow["channel"],
            fromAddress: m.from.address,
            fromName: m.from.name,
            to: m.to,
            cc: m.cc,
            // Delivered here without being named in to or cc: a blind copy.
            bcc: m.to.includes(rcpt) || m.cc.includes(rcpt) ? [] : [rcpt],
            replyTo: m.replyTo,
            subject: m.content.subject,
            textBody: m.content.text,
            htmlBody: m.content.html,
            messageIdHeader: m.thread.messageKey,
            inReplyTo: m.thread.inReplyTo,
            references: m.thread.references,
            channelMetadata: m.metadata,
            receivedAt: new Date(),
          },
          m.content.media,
          { silent: m.silent === true },
        ),
      );
      stored.push(row);
    }
  }
  return stored;
}
