import { randomUUID } from "node:crypto";
import { dkimSign } from "mailauth/lib/dkim/sign";
import MailComposer from "nodemailer/lib/mail-composer";

export interface MimeInput {
  from: { address: string; name?: string | null };
  to: string[];
  cc: string[];
  subject: string;
  text?: string | null;
  html?: string | null;
  replyTo?: string | null;
  messageId: string;
  inReplyTo?: string | null;
  references?: string[];
  headers?: Record<string, string>;
  attachments?: { filename: string; contentType: string; content: Buffer }[];
  date?: Date;
}

export interface DkimSigner {
  domain: string;
  selector: string;
  privateKey: string;
}

/** `<uuid@domain>`: a new RFC 5322 Message-ID on the sending domain. */
export const newMessageId = (domain: string) => `<${randomUUID()}@${domain}>`;

/** `abc@x` or `<abc@x>` → `<abc@x>`. */
export function angleBrackets(id: string): string {
  const trimmed = id.trim().replace(/^<+|>+$/g, "");
  return `<${trimmed}>`;
}

/** Builds the MIME message with nodemailer's composer (Bcc is never written into the headers). */
export async function buildMime(input: MimeInput): Promise<Buffer> {
  const composer = new MailComposer({
    from: input.from.name ? { name: input.from.name, address: input.from.address } : input.from.address,
    to: input.to,
    cc: input.cc.length ? input.cc : undefined,
    subject: input.subject,
    text: input.text ?? undefined,
    html: input.html ?? undefined,
    replyTo: input.replyTo ?? undefined,
    messageId: input.messageId,
    inReplyTo: input.inReplyTo ?? undefined,
    references: input.references?.length ? input.references.join(" ") : undefined,
    headers: input.headers,
    attachments: input.attachments?.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
    })),
    date: input.date ?? new Date(),
  });
  return composer.compile().build();
}

/** Prepends a DKIM-Signature (relaxed/relaxed, rsa-sha256) made with the domain's key. */
/**
 * The header fields DKIM signs: mailauth's defaults plus `List-Unsubscribe-Post`, which RFC 8058
 * requires to be covered (with `List-Unsubscribe`) for one-click unsubscribe.
 */
const DKIM_SIGNED_HEADERS =
  "From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:Content-ID:" +
  "Content-Description:Resent-Date:Resent-From:Resent-Sender:Resent-To:Resent-Cc:Resent-Message-ID:In-Reply-To:References:" +
  "List-Id:List-Help:List-Unsubscribe:List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive:BIMI-Selector";

export async function signDkim(raw: Buffer, signer: DkimSigner): Promise<Buffer> {
  // mailauth reads `signatureData` (its bundled typings describe an older top-level shape).
  const options = {
    headerList: DKIM_SIGNED_HEADERS,
    canonicalization: "relaxed/relaxed",
    algorithm: "rsa-sha256",
    signatureData: [{ signingDomain: signer.domain, selector: signer.selector, privateKey: signer.privateKey }],
  } as unknown as Parameters<typeof dkimSign>[1];
  const result = await dkimSign(raw, options);
  if (result.errors.length > 0) throw new Error(`DKIM signing failed: ${JSON.stringify(result.errors[0])}`);
  return Buffer.concat([Buffer.from(result.signatures), raw]);
}
