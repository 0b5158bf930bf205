import { authenticate } from "mailauth";
import { type AddressObject, simpleParser } from "mailparser";
import { getDb } from "@/db";
import { inboundProvenance } from "@/lib/agents/inbound";
import { mailauthResolver } from "@/lib/domains/dns";
import { env, mailHost } from "@/lib/env";
import { inboxByAddress, type InboxRow } from "@/lib/inboxes/service";
import { safeMediaType } from "@/lib/core/media-type";
import { messageIdsIn } from "./headers";
import { checkRawMessage, withoutNul } from "./inbound-policy";
import { newMessageId } from "./mime";
import { type MessageRow, storeMessage } from "./store";

/** SPF, DKIM and DMARC verdicts of an inbound message, as stored in `channelMetadata`. */
export interface AuthVerdicts {
  spf: string;
  dkim: string;
  dmarc: string;
}

export interface InboundEnvelope {
  mailFrom: string | null;
  rcptTo: string[];
  remoteAddress: string | null;
  helo: string | null;
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return list.flatMap((f) => f.value.map((v) => v.address?.toLowerCase() ?? "").filter(Boolean));
}

/** An inbox that receives at `address` (active), or null. */
export async function receivingInbox(address: string): Promise<InboxRow | null> {
  const inbox = await inboxByAddress(await getDb(), address);
  return inbox && inbox.status === "active" ? inbox : null;
}

/**
 * Receives one message from the SMTP receiver: authenticates it (SPF, DKIM, DMARC with a real
 * mail-authentication library on the configured DNS), parses it with a real MIME parser, and
 * stores it in each recipient inbox with its attachments, threaded, emitting `message.received`.
 */
export async function receiveInbound(raw: Buffer, envelope: InboundEnvelope): Promise<MessageRow[]> {
  checkRawMessage(raw, { maxMimeParts: env.SMTP_MAX_MIME_PARTS });
  const [auth, parsed] = await Promise.all([
    authenticate(raw, {
      ip: envelope.remoteAddress ?? undefined,
      helo: envelope.helo ?? undefined,
      sender: envelope.mailFrom ?? undefined,
      mta: mailHost(),
      resolver: mailauthResolver() as never,
    }),
    simpleParser(raw),
  ]);
  const verdicts: AuthVerdicts = {
    spf: auth.spf && typeof auth.spf === "object" ? (auth.spf.status?.result ?? "none") : "none",
    dkim: auth.dkim?.results?.[0]?.status?.result ?? "none",
    dmarc: auth.dmarc && typeof auth.dmarc === "object" ? (auth.dmarc.status?.result ?? "none") : "none",
  };
  const from = parsed.from?.value[0];
  // Ids that are not RFC 5322 msg-ids are dropped (a reply would otherwise copy them into its headers).
  const references = messageIdsIn(parsed.references);
  const messageId = messageIdsIn(parsed.messageId)[0];
  const inReplyTo = messageIdsIn(parsed.inReplyTo)[0] ?? null;
  const fromDomain = (from?.address ?? envelope.mailFrom ?? "unknown@localhost").split("@")[1] ?? "localhost";
  const db = await getDb();
  // An agent's signed provenance from another deployment (or this one), verified when present.
  const provenance = await inboundProvenance(db, raw, parsed.headers.get("x-svc-provenance"), messageId);
  const stored: MessageRow[] = [];
  for (const rcpt of [...new Set(envelope.rcptTo.map((r) => r.toLowerCase()))]) {
    const inbox = await receivingInbox(rcpt);
    if (!inbox) continue;
    const cc = addresses(parsed.cc);
    const to = addresses(parsed.to);
    const row = await db.transaction((tx) =>
      storeMessage(
        tx,
        {
          orgId: inbox.orgId,
          inboxId: inbox.id,
          direction: "inbound",
          status: "received",
          channel: "email",
          fromAddress: from?.address?.toLowerCase() ?? envelope.mailFrom ?? "",
          fromName: withoutNul(from?.name) || null,
          to,
          cc,
          bcc: to.includes(rcpt) || cc.includes(rcpt) ? [] : [rcpt],
          replyTo: addresses(parsed.replyTo)[0] ?? null,
          subject: withoutNul(parsed.subject) ?? "",
          textBody: withoutNul(parsed.text) ?? null,
          htmlBody: typeof parsed.html === "string" ? withoutNul(parsed.html) : null,
          messageIdHeader: messageId ?? newMessageId(fromDomain),
          inReplyTo,
          references: references.slice(-32),
          channelMetadata: {
            authentication: verdicts,
            spf: verdicts.spf,
            dkim: verdicts.dkim,
            dmarc: verdicts.dmarc,
            mailFrom: envelope.mailFrom,
            remoteAddress: envelope.remoteAddress,
            helo: envelope.helo,
            sesMessageId: null,
            ...provenance,
          },
          receivedAt: new Date(),
        },
        parsed.attachments.map((a) => ({
          filename: withoutNul(a.filename) ?? null,
          contentType: safeMediaType(a.contentType),
          contentId: a.cid ?? null,
          disposition: a.contentDisposition === "inline" ? "inline" : "attachment",
          content: a.content,
        })),
      ),
    );
    stored.push(row);
  }
  return stored;
}
