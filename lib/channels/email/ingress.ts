import { getDb } from "@/db";
import type { InboxRow } from "@/lib/inboxes/service";
import { landInbound, receivingInbox } from "@/lib/messages/receive";
import type { MessageRow } from "@/lib/messages/store";
import { email } from ".";
import type { InboundEnvelope } from "./receive";

/**
 * The SMTP receiver's glue (lib/providers/mail/smtp-receiver.ts): the ingress of the email
 * channel. A message goes through the email adapter's `receive` (authentication, parsing,
 * provenance) and lands through the pipeline like inbound of every channel.
 */
export async function receiveInbound(raw: Buffer, envelope: InboundEnvelope): Promise<MessageRow[]> {
  const db = await getDb();
  if (!email.receive) throw new Error("the email channel receives nothing");
  return landInbound(db, await email.receive(db, raw, { ...envelope }));
}

/** An inbox that receives mail at `address` (RCPT TO: its email connection's inbox, active), or null. */
export async function receivingMailbox(address: string): Promise<InboxRow | null> {
  return receivingInbox(await getDb(), email.id, address.trim().toLowerCase());
}

export type { InboundEnvelope } from "./receive";
