import { eq } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import { z } from "zod";
import type { DbOrTx } from "@/db";
import { domains } from "@/db/schema";
import { sharedDomainKey } from "@/lib/domains/dkim";
import { mailTransport } from "@/lib/providers/mail";
import { defineChannel, provenanceKeys, type SenderConnection } from "../port";
import { emailDefinition } from "./definition";
import { angleBrackets, buildMime, type DkimSigner, newMessageId, signDkim } from "./mime";
import { fromProviderOutcome, mailboxUnavailable, mailOutcomeMetadata } from "./outcomes";
import type { InboundEnvelope } from "./receive";

/**
 * The signers read in one transaction, by domain: a broadcast chunk composes every member's message
 * in one transaction and reads the domain once (outside a transaction each send reads its own).
 */
const signersInTx = new WeakMap<object, Map<string, Promise<DkimSigner>>>();

function signerFor(db: DbOrTx, from: SenderConnection): Promise<DkimSigner> {
  if (!(db instanceof PgTransaction)) return readSigner(db, from);
  let memo = signersInTx.get(db);
  if (!memo) signersInTx.set(db, (memo = new Map<string, Promise<DkimSigner>>()));
  const key = from.domainId ?? "";
  let signer = memo.get(key);
  if (!signer) memo.set(key, (signer = readSigner(db, from)));
  return signer;
}

async function readSigner(db: DbOrTx, from: SenderConnection): Promise<DkimSigner> {
  if (!from.domainId) throw new Error(`inbox ${from.inboxId} has no domain`);
  // Read ahead with the inbox by a send (one statement fewer); else read here.
  const [domain] =
    from.domain?.id === from.domainId
      ? [from.domain]
      : await db.select().from(domains).where(eq(domains.id, from.domainId));
  if (!domain) throw new Error(`inbox ${from.inboxId} has no domain`);
  if (domain.isShared) {
    const key = await sharedDomainKey(db);
    return { domain: domain.name, selector: key.selector, privateKey: key.privateKey };
  }
  if (!domain.dkimSelector || !domain.dkimPrivateKey) throw new Error(`domain ${domain.id} has no DKIM key`);
  return { domain: domain.name, selector: domain.dkimSelector, privateKey: domain.dkimPrivateKey };
}

const addressSchema = z.email();

/** Mail-style thread options (email, a2a): In-Reply-To and References, bracketed. */
export function mailThreadOptions(options: Record<string, unknown>): {
  inReplyTo: string | null;
  references: string[];
} {
  const inReplyTo = typeof options.inReplyTo === "string" ? angleBrackets(options.inReplyTo) : null;
  const references = Array.isArray(options.references) ? (options.references as string[]).map(angleBrackets) : [];
  return { inReplyTo, references };
}

/** A mail address as given, lower-cased; refused when it is none. */
export function mailAddress(raw: string): { ok: true; address: string } | { ok: false; message: string } {
  const address = raw.trim().toLowerCase();
  return addressSchema.safeParse(address).success
    ? { ok: true, address }
    : { ok: false, message: `"${raw}" is not a valid email address.` };
}

/** A new Message-ID on the sender's domain. */
export const mailMessageKey = (from: SenderConnection) => newMessageId(from.address.split("@")[1] ?? "localhost");

/**
 * Email: any address. External recipients get DKIM-signed MIME through the configured transport
 * (embedded outbox, SES, SMTP relay); inboxes of this service get their copy directly. Inbound
 * mail comes through the SMTP receiver (`ingress.ts`), SES's delivery notifications through
 * `providerEvent` (`provider-events.ts`).
 */
export const email = defineChannel({
  ...emailDefinition,
  address: mailAddress,
  validate: () => {},
  messageKey: mailMessageKey,
  threadOptions: mailThreadOptions,
  async compose(db, d) {
    const headers = (d.options.headers ?? {}) as Record<string, string>;
    const mime = await buildMime({
      from: { address: d.from.address, name: d.from.displayName },
      to: d.to,
      cc: d.cc,
      subject: d.content.subject,
      text: d.content.text,
      html: d.content.html,
      replyTo: typeof d.options.replyTo === "string" ? d.options.replyTo : null,
      messageId: d.messageKey,
      inReplyTo: d.thread.inReplyTo,
      references: d.thread.references,
      headers,
      attachments: d.content.media.map((f) => ({
        filename: f.filename ?? "attachment",
        contentType: f.contentType,
        content: f.content,
      })),
    });
    return signDkim(mime, await signerFor(db, d.from));
  },
  async deliver(wire) {
    const result = await mailTransport().send({ raw: wire.body, envelope: wire.envelope, messageId: wire.messageKey });
    return {
      provider: result.provider,
      providerMessageId: result.providerMessageId,
      outcomes: result.outcomes.map(fromProviderOutcome),
    };
  },
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
  outcomeMetadata: mailOutcomeMetadata,
  unavailable: mailboxUnavailable,
  providers: ["ses"],
  // Loaded on first use: SNS verification is not needed to send.
  providerEvent: async (provider, payload) => (await import("./provider-events")).sesEvent(provider, payload),
  // Loaded on first use: the parser and the authentication checks are not needed to send.
  receive: async (db, raw, origin) => [
    await (await import("./receive")).readInboundMail(db, raw, origin as unknown as InboundEnvelope),
  ],
});
