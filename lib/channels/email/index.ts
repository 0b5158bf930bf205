import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { domains } from "@/db/schema";
import { sharedDomainKey } from "@/lib/domains/dkim";
import type { InboxRow } from "@/lib/inboxes/service";
import { buildMime, type DkimSigner, signDkim } from "@/lib/messages/mime";
import { mailTransport } from "@/lib/providers/mail";
import { defineChannel, provenanceKeys } from "../types";
import { emailDefinition } from "./definition";

async function signerFor(db: DbOrTx, inbox: InboxRow): Promise<DkimSigner> {
  const [domain] = await db.select().from(domains).where(eq(domains.id, inbox.domainId));
  if (!domain) throw new Error(`inbox ${inbox.id} has no domain`);
  if (domain.isShared) {
    const key = await sharedDomainKey(db);
    return { domain: domain.name, selector: key.selector, privateKey: key.privateKey };
  }
  if (!domain.dkimSelector || !domain.dkimPrivateKey) throw new Error(`domain ${domain.id} has no DKIM key`);
  return { domain: domain.name, selector: domain.dkimSelector, privateKey: domain.dkimPrivateKey };
}

/**
 * Email: any address. External recipients get DKIM-signed MIME through the configured transport
 * (embedded outbox, SES, SMTP relay); inboxes of this service get their copy directly.
 */
export const email = defineChannel({
  ...emailDefinition,
  validate: () => {},
  async compose(db, s) {
    const mime = await buildMime({
      from: { address: s.inbox.address, name: s.inbox.displayName },
      to: s.to,
      cc: s.cc,
      subject: s.subject,
      text: s.text,
      html: s.html,
      replyTo: s.replyTo,
      messageId: s.messageIdHeader,
      inReplyTo: s.inReplyTo,
      references: s.references,
      headers: s.headers,
      attachments: s.files.map((f) => ({
        filename: f.filename ?? "attachment",
        contentType: f.contentType,
        content: f.content,
      })),
    });
    return signDkim(mime, await signerFor(db, s.inbox));
  },
  deliver: (mail) => mailTransport().send(mail),
  // Any email address: the channel of last resort.
  byDefault: { rank: 0, takes: () => true },
  outboundMetadata: (p) => ({
    provider: null,
    providerMessageId: null,
    lastEventType: null,
    lastEventAt: null,
    bouncedAt: null,
    complainedAt: null,
    ...provenanceKeys(p),
  }),
  copyMetadata: (p) => ({ internal: true, senderInboxId: p.senderInboxId, ...provenanceKeys(p) }),
  // Loaded on first use: the parser and the authentication checks are not needed to send.
  receive: async (raw, envelope) => (await import("@/lib/messages/receive")).receiveInbound(raw, envelope),
});
