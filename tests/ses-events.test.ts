import { execFileSync } from "node:child_process";
import { createSign } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, expect, test } from "vitest";
import { cacheSigningCertificate, type SnsMessage, stringToSign } from "@/lib/providers/ses/sns";
import { call, newInbox, newOrg } from "./harness";

/** SES delivery notifications arrive as SNS messages whose RSA signatures are verified. */
const CERT_URL = "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-test.pem";
let privateKey = "";

beforeAll(() => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-sns-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      "/CN=sns.amazonaws.com",
      "-days",
      "1",
      "-keyout",
      path.join(dir, "key.pem"),
      "-out",
      path.join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  privateKey = fs.readFileSync(path.join(dir, "key.pem"), "utf8");
  cacheSigningCertificate(CERT_URL, fs.readFileSync(path.join(dir, "cert.pem"), "utf8"));
  fs.rmSync(dir, { recursive: true, force: true });
});

function snsNotification(sesEvent: unknown, version: "1" | "2" = "2"): SnsMessage {
  const m: SnsMessage = {
    Type: "Notification",
    MessageId: `m-${Date.now()}`,
    TopicArn: "arn:aws:sns:us-east-1:123456789012:ses-events",
    Message: JSON.stringify(sesEvent),
    Timestamp: new Date().toISOString(),
    SignatureVersion: version,
    Signature: "",
    SigningCertURL: CERT_URL,
  };
  const signer = createSign(version === "2" ? "RSA-SHA256" : "RSA-SHA1");
  signer.update(stringToSign(m));
  return { ...m, Signature: signer.sign(privateKey, "base64") };
}

test("a signed SES bounce and complaint update the message, list as events, and suppress on complaint", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "ses");
  const sent = await call("POST", "/v1/messages", {
    key: org.secret,
    body: { inboxId: inbox.id, to: "reader@example.com", text: "x" },
  });
  const providerMessageId = sent.body.providerMessageId;
  const now = new Date().toISOString();
  const bounce = snsNotification({
    eventType: "Bounce",
    mail: { messageId: providerMessageId },
    bounce: {
      bounceType: "Transient",
      bounceSubType: "MailboxFull",
      timestamp: now,
      bouncedRecipients: [{ emailAddress: "reader@example.com", diagnosticCode: "smtp; 452 4.2.2 full" }],
    },
  });
  const res = await call("POST", "/v1/providers/ses/events", { body: bounce });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ received: true, applied: 1 });
  const complaint = snsNotification(
    {
      notificationType: "Complaint",
      mail: { messageId: providerMessageId },
      complaint: {
        timestamp: now,
        complaintFeedbackType: "abuse",
        complainedRecipients: [{ emailAddress: "reader@example.com" }],
      },
    },
    "1",
  );
  expect((await call("POST", "/v1/providers/ses/events", { body: complaint })).body.applied).toBe(1);

  const events = (await call("GET", `/v1/messages/${sent.body.id}/events`, { key: org.secret })).body.events;
  expect(events.map((e: { type: string }) => e.type)).toEqual(["Delivery", "Bounce", "Complaint"]);
  expect(events[1]).toMatchObject({
    bounceType: "Transient",
    bounceSubType: "MailboxFull",
    diagnosticCode: "smtp; 452 4.2.2 full",
  });
  const msg = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message;
  expect(msg.channelMetadata).toMatchObject({
    lastEventType: "Complaint",
    bouncedAt: expect.any(String),
    complainedAt: expect.any(String),
  });
  const again = await call("POST", "/v1/messages", {
    key: org.secret,
    body: { inboxId: inbox.id, to: "reader@example.com", text: "x" },
  });
  expect(again.status).toBe(400);
});

test("a hard bounce reported by SES makes the message read `bounced` (API field, list filter)", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "hard");
  const sent = await call("POST", "/v1/messages", {
    key: org.secret,
    body: { inboxId: inbox.id, to: "gone@example.com", subject: "Hard", text: "x" },
  });
  const kept = await call("POST", "/v1/messages", {
    key: org.secret,
    body: { inboxId: inbox.id, to: "kept@example.com", subject: "Kept", text: "x" },
  });
  const statusOf = async (id: string) =>
    (await call("GET", `/v1/messages/${id}`, { key: org.secret })).body.message.deliveryStatus;
  // The embedded transport reports a Delivery at once, as SES's simulator would for this address.
  expect(await statusOf(sent.body.id)).toBe("delivered");
  const bounce = snsNotification({
    eventType: "Bounce",
    mail: { messageId: sent.body.providerMessageId },
    bounce: {
      bounceType: "Permanent",
      bounceSubType: "General",
      timestamp: new Date().toISOString(),
      bouncedRecipients: [{ emailAddress: "gone@example.com", diagnosticCode: "smtp; 550 5.1.1 user unknown" }],
    },
  });
  expect((await call("POST", "/v1/providers/ses/events", { body: bounce })).body).toEqual({
    received: true,
    applied: 1,
  });
  expect(await statusOf(sent.body.id)).toBe("bounced");
  expect(await statusOf(kept.body.id)).toBe("delivered");
  const bounced = (await call("GET", `/v1/messages?deliveryStatus=bounced`, { key: org.secret })).body.messages;
  expect(bounced.map((m: { id: string }) => m.id)).toEqual([sent.body.id]);
  expect((await call("GET", `/v1/messages?deliveryStatus=nonsense`, { key: org.secret })).body.error).toMatchObject({
    code: "invalid_request",
    param: "deliveryStatus",
  });
});

test("a tampered or foreign-signed message is refused; unknown providers are 404", async () => {
  const good = snsNotification({
    eventType: "Delivery",
    mail: { messageId: "nope" },
    delivery: { timestamp: new Date().toISOString(), recipients: ["a@b.c"] },
  });
  const tampered = { ...good, Message: good.Message.replace("nope", "other") };
  const res = await call("POST", "/v1/providers/ses/events", { body: tampered });
  expect(res.status).toBe(403);
  expect(res.body.error).toMatchObject({ code: "not_permitted", param: "Signature" });
  const foreignCert = { ...good, SigningCertURL: "https://evil.example.com/cert.pem" };
  expect((await call("POST", "/v1/providers/ses/events", { body: foreignCert })).status).toBe(403);
  expect((await call("POST", "/v1/providers/mailgun/events", { body: good })).status).toBe(404);
  expect((await call("POST", "/v1/providers/ses/events", { body: { Type: "Nonsense" } })).status).toBe(400);
  // A verified notification for a message this service does not know is acknowledged, not an error.
  expect((await call("POST", "/v1/providers/ses/events", { body: good })).body).toEqual({ received: true, applied: 0 });
});
