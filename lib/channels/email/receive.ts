import { authenticate } from "mailauth";
import { type AddressObject, simpleParser } from "mailparser";
import type { DbOrTx } from "@/db";
import { inboundProvenance } from "@/lib/agents/inbound";
import { mailauthResolver } from "@/lib/domains/dns";
import { env, mailHost } from "@/lib/env";
import { safeMediaType } from "@/lib/core/media-type";
import type { InboundMessage } from "../port";
import { messageIdsIn } from "./headers";
import { checkRawMessage, withoutNul } from "./inbound-policy";
import { newMessageId } from "./mime";

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

/**
 * Reads one message off the SMTP receiver's wire: authenticates it (SPF, DKIM, DMARC with a real
 * mail-authentication library on the configured DNS), parses it with a real MIME parser, and
 * verifies an agent's provenance token when it carries one. Stores nothing: the ingress hands the
 * result to the pipeline (`lib/messages/receive.ts`), which lands it in each recipient inbox.
 */
export async function readInboundMail(db: DbOrTx, raw: Buffer, envelope: InboundEnvelope): Promise<InboundMessage> {
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
  // An agent's signed provenance from another deployment (or this one), verified when present.
  const provenance = await inboundProvenance(db, raw, parsed.headers.get("x-svc-provenance"), messageId);
  return {
    channel: "email",
    deliveredTo: [...new Set(envelope.rcptTo.map((r) => r.toLowerCase()))],
    from: { address: from?.address?.toLowerCase() ?? envelope.mailFrom ?? "", name: withoutNul(from?.name) || null },
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    replyTo: addresses(parsed.replyTo)[0] ?? null,
    content: {
      subject: withoutNul(parsed.subject) ?? "",
      text: withoutNul(parsed.text) ?? null,
      html: typeof parsed.html === "string" ? withoutNul(parsed.html) : null,
      media: parsed.attachments.map((a) => ({
        filename: withoutNul(a.filename) ?? null,
        contentType: safeMediaType(a.contentType),
        contentId: a.cid ?? null,
        disposition: a.contentDisposition === "inline" ? "inline" : "attachment",
        content: a.content,
      })),
    },
    thread: { messageKey: messageId ?? newMessageId(fromDomain), inReplyTo, references: references.slice(-32) },
    metadata: {
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
  };
}
