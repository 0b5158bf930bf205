import { and, eq } from "drizzle-orm";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getDb } from "@/db";
import { ledgerEvents } from "@/db/schema";
import { dkimRecordValue, generateDkimKey } from "@/lib/domains/dkim";
import { type SmtpReceiver, startSmtpReceiver } from "@/lib/providers/mail/smtp-receiver";
import { publishDns } from "./dns-server";
import { call, newInbox, newOrg, type TestOrg } from "./harness";

/** The built-in SMTP receiver, talked to by a real SMTP client (nodemailer), DNS on loopback. */
let receiver: SmtpReceiver;
let org: TestOrg;
let inbox: { id: string; address: string };
const senderDomain = `sender-${Date.now()}.example.test`;
const key = generateDkimKey();

beforeAll(async () => {
  receiver = await startSmtpReceiver({ port: 0, host: "127.0.0.1", maxBytes: 200_000, name: "mx.test" });
  org = await newOrg();
  inbox = await newInbox(org, "smtp");
  publishDns([
    { name: senderDomain, type: "TXT", value: "v=spf1 ip4:127.0.0.1 -all" },
    { name: `${key.selector}._domainkey.${senderDomain}`, type: "TXT", value: dkimRecordValue(key.publicKey) },
    { name: `_dmarc.${senderDomain}`, type: "TXT", value: "v=DMARC1; p=reject" },
  ]);
});
afterAll(async () => {
  await receiver.close();
});

function client(dkim = true) {
  return nodemailer.createTransport({
    host: "127.0.0.1",
    port: receiver.port,
    secure: false,
    ignoreTLS: true,
    name: "client.example.test",
    ...(dkim ? { dkim: { domainName: senderDomain, keySelector: key.selector, privateKey: key.privateKey } } : {}),
  });
}

test("mail from a real SMTP client is stored with its SPF, DKIM and DMARC verdicts, attachments and event", async () => {
  const info = await client().sendMail({
    from: `Alice <alice@${senderDomain}>`,
    to: inbox.address,
    subject: "Invoice 42",
    text: "Please find it attached.",
    html: "<p>Please find it <b>attached</b>.</p>",
    attachments: [{ filename: "invoice.txt", content: "total: 42" }],
  });
  expect(info.accepted).toEqual([inbox.address]);
  const list = await call("GET", `/v1/messages?inboxId=${inbox.id}`, { key: org.secret });
  const msg = list.body.messages[0];
  expect(msg).toMatchObject({
    direction: "inbound",
    channel: "email",
    subject: "Invoice 42",
    from: { address: `alice@${senderDomain}`, name: "Alice" },
    hasAttachments: true,
  });
  expect(msg.channelMetadata).toMatchObject({
    spf: "pass",
    dkim: "pass",
    dmarc: "pass",
    remoteAddress: "127.0.0.1",
    mailFrom: `alice@${senderDomain}`,
  });
  const full = (await call("GET", `/v1/messages/${msg.id}`, { key: org.secret })).body.message;
  expect(full.textBody.trim()).toBe("Please find it attached.");
  expect(full.attachments).toEqual([
    expect.objectContaining({ filename: "invoice.txt", contentType: "text/plain", sizeBytes: 9 }),
  ]);
  const db = await getDb();
  const events = await db
    .select()
    .from(ledgerEvents)
    .where(and(eq(ledgerEvents.orgId, org.orgId), eq(ledgerEvents.messageId, msg.id)));
  expect(events.map((e) => e.type)).toEqual(["message.received"]);
});

test("unsigned mail from an address SPF does not allow fails the checks but is still stored", async () => {
  const other = `other-${Date.now()}.example.test`;
  publishDns([
    { name: other, type: "TXT", value: "v=spf1 ip4:192.0.2.1 -all" },
    { name: `_dmarc.${other}`, type: "TXT", value: "v=DMARC1; p=reject" },
  ]);
  await client(false).sendMail({ from: `mallory@${other}`, to: inbox.address, subject: "spoof", text: "x" });
  const msg = (await call("GET", `/v1/messages?inboxId=${inbox.id}`, { key: org.secret })).body.messages[0];
  expect(msg.subject).toBe("spoof");
  expect(msg.channelMetadata).toMatchObject({ spf: "fail", dkim: "none", dmarc: "fail" });
});

test("replies thread with the message they answer", async () => {
  const sent = await call("POST", "/v1/messages", {
    key: org.secret,
    body: { inboxId: inbox.id, to: `bob@${senderDomain}`, subject: "Question", text: "?" },
  });
  const original = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message;
  await client().sendMail({
    from: `bob@${senderDomain}`,
    to: inbox.address,
    subject: "Re: Question",
    text: "Answer",
    inReplyTo: original.messageId,
    references: [original.messageId],
  });
  const reply = (await call("GET", `/v1/messages?inboxId=${inbox.id}&direction=inbound`, { key: org.secret })).body
    .messages[0];
  expect(reply.subject).toBe("Re: Question");
  expect(reply.threadId).toBe(original.threadId);
});

test("mail for unknown or paused inboxes is refused with 550; oversized mail with 552", async () => {
  await expect(
    client().sendMail({ from: `a@${senderDomain}`, to: "nobody@svc.localhost", subject: "x", text: "x" }),
  ).rejects.toMatchObject({ responseCode: 550 });
  const paused = await newInbox(org, "paused");
  await call("PATCH", `/v1/inboxes/${paused.id}`, { key: org.secret, body: { status: "paused" } });
  await expect(
    client().sendMail({ from: `a@${senderDomain}`, to: paused.address, subject: "x", text: "x" }),
  ).rejects.toMatchObject({ responseCode: 550 });
  await expect(
    client().sendMail({ from: `a@${senderDomain}`, to: inbox.address, subject: "big", text: "x".repeat(300_000) }),
  ).rejects.toMatchObject({ responseCode: 552 });
});
