import { generateKeyPairSync } from "node:crypto";
import { dkimSign } from "mailauth/lib/dkim/sign";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { describe, expect, it } from "vitest";
import { buildMime, type DkimSigner, parsedPrivateKey, signDkim } from "@/lib/channels/email/mime";
import { dkimRecordValue, generateDkimKey } from "@/lib/domains/dkim";

/**
 * `signDkim` signs with a key parsed once (mailauth's `dkimSign` parses the PEM on every call). Its
 * signature must be mailauth's, byte for byte, and pass mailauth's own verifier against the
 * domain's published key (a loopback resolver answering the one TXT record).
 */

const HEADERS =
  "From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:Content-ID:" +
  "Content-Description:Resent-Date:Resent-From:Resent-Sender:Resent-To:Resent-Cc:Resent-Message-ID:In-Reply-To:References:" +
  "List-Id:List-Help:List-Unsubscribe:List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive:BIMI-Selector";

const loopback = (name: string, record: string) => async (asked: string, rrtype: string) => {
  if (rrtype === "TXT" && asked === name) return [[record]];
  throw Object.assign(new Error(`no ${rrtype} for ${asked}`), { code: "ENOTFOUND" });
};

const message = () =>
  buildMime({
    from: { address: "sender@example.org", name: "Sénder Ünïcode" },
    to: ["a@example.com", "b@example.net"],
    cc: ["c@example.com"],
    subject: `A subject long enough to be folded over more than one header line ${"x".repeat(80)} ✓`,
    text: "Line one  with   spaces   \r\n\r\nLast line\t \r\n\r\n\r\n",
    html: "<p>Hello</p>",
    replyTo: "reply@example.org",
    messageId: "<abc@example.org>",
    inReplyTo: "<parent@example.com>",
    references: ["<root@example.com>", "<parent@example.com>"],
    headers: {
      "List-Unsubscribe": "<https://example.org/u/1>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "X-Campaign": "q4",
    },
    attachments: [{ filename: "a.txt", contentType: "text/plain", content: Buffer.from("attached") }],
    date: new Date("2026-11-27T12:00:00Z"),
  });

async function mailauths(raw: Buffer, signer: DkimSigner, signTime: Date): Promise<Buffer> {
  const result = await dkimSign(raw, {
    headerList: HEADERS,
    canonicalization: "relaxed/relaxed",
    signTime,
    signatureData: [{ signingDomain: signer.domain, selector: signer.selector, privateKey: signer.privateKey }],
  } as unknown as Parameters<typeof dkimSign>[1]);
  expect(result.errors).toEqual([]);
  return Buffer.concat([Buffer.from(result.signatures), raw]);
}

describe("signDkim", () => {
  it("makes mailauth's RSA signature, byte for byte, and it verifies", async () => {
    const key = generateDkimKey();
    const signer = { domain: "example.org", selector: key.selector, privateKey: key.privateKey };
    const raw = await message();
    const at = new Date("2026-11-27T12:00:05Z");
    const ours = await signDkim(raw, signer, at);
    expect(ours.toString()).toBe((await mailauths(raw, signer, at)).toString());
    expect(ours.toString()).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=example.org;/);

    const resolver = loopback(`${key.selector}._domainkey.example.org`, dkimRecordValue(key.publicKey));
    const verdict = await dkimVerify(await signDkim(raw, signer), { resolver });
    expect(verdict.results[0]?.status).toMatchObject({ result: "pass" });
    expect(verdict.results[0]?.signingDomain).toBe("example.org");

    // A changed body no longer verifies.
    const tampered = Buffer.from((await signDkim(raw, signer)).toString().replace("Last line", "Last lime"));
    const refused = await dkimVerify(tampered, { resolver });
    expect(refused.results[0]?.status.result).toBe("neutral");
  });

  it("signs with an Ed25519 key too (ed25519-sha256), as mailauth does", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const signer = { domain: "example.org", selector: "ed", privateKey: pem };
    const raw = await message();
    const at = new Date("2026-11-27T12:00:05Z");
    const ours = await signDkim(raw, signer, at);
    expect(ours.toString()).toBe((await mailauths(raw, signer, at)).toString());
    const spki = publicKey.export({ type: "spki", format: "der" });
    const record = `v=DKIM1; k=ed25519; p=${spki.subarray(spki.length - 32).toString("base64")}`;
    const verdict = await dkimVerify(ours, { resolver: loopback("ed._domainkey.example.org", record) });
    expect(verdict.results[0]?.status).toMatchObject({ result: "pass" });
  });

  it("parses a key once", () => {
    const { privateKey: pem } = generateDkimKey();
    expect(parsedPrivateKey(pem)).toBe(parsedPrivateKey(`${pem}`));
    expect(parsedPrivateKey(pem).asymmetricKeyType).toBe("rsa");
  });
});
