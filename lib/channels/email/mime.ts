import { createHash, createPrivateKey, type KeyObject, randomUUID, sign } from "node:crypto";
// mailauth's own canonicalization and formatting (CommonJS without typings: declared in ./mailauth-internals.d.ts).
import { dkimBody } from "mailauth/lib/dkim/body";
import { generateCanonicalizedHeader } from "mailauth/lib/dkim/header";
import { formatSignatureHeaderLine, getSigningHeaderLines, parseHeaders } from "mailauth/lib/tools";
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

/**
 * The header fields DKIM signs: mailauth's defaults plus `List-Unsubscribe-Post`, which RFC 8058
 * requires to be covered (with `List-Unsubscribe`) for one-click unsubscribe.
 */
const DKIM_SIGNED_HEADERS =
  "From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:Content-ID:" +
  "Content-Description:Resent-Date:Resent-From:Resent-Sender:Resent-To:Resent-Cc:Resent-Message-ID:In-Reply-To:References:" +
  "List-Id:List-Help:List-Unsubscribe:List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive:BIMI-Selector";

/**
 * Parsed private keys by their PEM. mailauth's `dkimSign` takes only a PEM and parses it on every
 * call (about two thirds of a signature's cost); a domain's key is parsed once per process here.
 * Bounded: a deployment with more domains than this re-parses the least recently used.
 */
const parsedKeys = new Map<string, KeyObject>();
const PARSED_KEYS_MAX = 256;

export function parsedPrivateKey(pem: string): KeyObject {
  let key = parsedKeys.get(pem);
  if (key) {
    // Most recently used last (Map keeps insertion order).
    parsedKeys.delete(pem);
  } else {
    key = createPrivateKey({ key: pem, format: "pem" });
    if (parsedKeys.size >= PARSED_KEYS_MAX) {
      const oldest = parsedKeys.keys().next().value;
      if (oldest !== undefined) parsedKeys.delete(oldest);
    }
  }
  parsedKeys.set(pem, key);
  return key;
}

/** The end of the header block: the index of the body's first byte (the blank line consumed). */
function headerEnd(raw: Buffer): number {
  const crlf = raw.indexOf("\r\n\r\n");
  const lf = raw.indexOf("\n\n");
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return crlf + 4;
  if (lf >= 0) return lf + 2;
  return raw.length;
}

/**
 * Prepends a DKIM-Signature (relaxed/relaxed; rsa-sha256, or ed25519-sha256 for an Ed25519 key)
 * made with the domain's key, parsed once (`parsedPrivateKey`). The same signature mailauth's
 * `dkimSign` makes, byte for byte (tests/dkim-signer.test.ts compares them): mailauth's own header
 * parsing, canonicalization and header formatting are used, only the key handling and the
 * `crypto.sign` call are ours. `signTime` fixes `t=` (tests).
 */
export function signDkim(raw: Buffer, signer: DkimSigner, signTime?: Date): Promise<Buffer> {
  const key = parsedPrivateKey(signer.privateKey);
  const signAlgo = key.asymmetricKeyType;
  if (signAlgo !== "rsa" && signAlgo !== "ed25519") throw new Error(`DKIM signing failed: a ${signAlgo} key`);
  const algorithm = `${signAlgo}-sha256`;
  const split = headerEnd(raw);
  const headers = parseHeaders(raw.subarray(0, split));
  const body = dkimBody("relaxed/relaxed", "sha256", false);
  if (split < raw.length) body.update(raw.subarray(split));
  const lines = getSigningHeaderLines(headers.parsed, DKIM_SIGNED_HEADERS);
  const { canonicalizedHeader, dkimHeaderOpts } = generateCanonicalizedHeader("DKIM", lines, {
    signingDomain: signer.domain,
    selector: signer.selector,
    algorithm,
    canonicalization: "relaxed/relaxed",
    signTime,
    bodyHash: body.digest("base64"),
  });
  // With a callback the signature is made on libuv's thread pool, off the event loop: the
  // signatures of concurrent sends (a broadcast chunk's members) use the other cores.
  return new Promise((resolve, reject) =>
    sign(
      signAlgo === "rsa" ? algorithm : null,
      signAlgo === "rsa" ? canonicalizedHeader : createHash("sha256").update(canonicalizedHeader).digest(),
      key,
      (err, signature) => {
        if (err) return reject(err);
        const line = formatSignatureHeaderLine("DKIM", { ...dkimHeaderOpts, b: signature.toString("base64") }, true);
        resolve(Buffer.concat([Buffer.from(`${line}\r\n`), raw]));
      },
    ),
  );
}
