import fs from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { auditLogs, ledgerEvents, messages } from "@/db/schema";
import { dkimRecordValue, sharedDomainKey } from "@/lib/domains/dkim";
import { mailauthResolver } from "@/lib/domains/dns";
import { env } from "@/lib/env";
import { consolePrincipal } from "@/lib/auth/roles";
import { actionError } from "@/lib/console/action";
import { invoke } from "@/lib/core/invoke";
import { replyInThread, sendMessage } from "@/lib/messages/operations";
import { publishDns } from "./dns-server";
import { call, newInbox, newKey, newOrg, type TestOrg } from "./harness";

async function send(org: TestOrg, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call("POST", "/v1/messages", { key: org.secret, body, headers });
}

async function inboundOf(org: TestOrg, inboxId: string) {
  return (await call("GET", `/v1/messages?inboxId=${inboxId}&direction=inbound`, { key: org.secret })).body.messages;
}

test("agent-to-agent: delivered at once, threaded, and a reply threads under it in both inboxes", async () => {
  const a = await newOrg();
  const b = await newOrg();
  const alice = await newInbox(a, "alice");
  const bob = await newInbox(b, "bob");
  const sent = await send(a, { inboxId: alice.id, to: bob.address, subject: "Plan", text: "Shall we?" });
  expect(sent.status).toBe(200);
  expect(sent.body).toMatchObject({ status: "sent", channel: "a2a", warnings: [], error: null, scheduledAt: null });
  expect(sent.body.channelMetadata.receiptId).toMatch(/^rcpt_/);

  const [received] = await inboundOf(b, bob.id);
  expect(received).toMatchObject({
    direction: "inbound",
    channel: "a2a",
    subject: "Plan",
    from: { address: alice.address },
    to: [bob.address],
  });
  expect(received.channelMetadata.receiptId).toBe(sent.body.channelMetadata.receiptId);
  expect(received.threadId).toBeTruthy();

  const reply = await send(b, { inboxId: bob.id, to: alice.address, replyToMessageId: received.id, text: "Yes" });
  expect(reply.body.status).toBe("sent");
  const bobThread = await call("GET", `/v1/threads/${received.threadId}`, { key: b.secret });
  expect(bobThread.body.thread.messages.map((m: { direction: string }) => m.direction)).toEqual([
    "inbound",
    "outbound",
  ]);
  expect(bobThread.body.thread.messageCount).toBe(2);

  const aliceMessages = (await call("GET", `/v1/messages?inboxId=${alice.id}`, { key: a.secret })).body.messages;
  const [aliceReply, aliceOriginal] = aliceMessages;
  expect(aliceReply.direction).toBe("inbound");
  expect(aliceReply.threadId).toBe(aliceOriginal.threadId);
  expect(aliceReply.inReplyTo).toBe(aliceOriginal.messageId);
  expect(aliceReply.references).toEqual([aliceOriginal.messageId]);

  const db = await getDb();
  const sentEvents = await db
    .select()
    .from(ledgerEvents)
    .where(and(eq(ledgerEvents.orgId, a.orgId), eq(ledgerEvents.partitionKey, `inbox:${alice.id}`)))
    .orderBy(ledgerEvents.seq);
  expect(sentEvents.map((e) => `${e.seq}:${e.type}`)).toEqual(["1:message.sent", "2:message.received"]);
  const bobEvents = await db
    .select()
    .from(ledgerEvents)
    .where(and(eq(ledgerEvents.orgId, b.orgId), eq(ledgerEvents.type, "message.received")));
  expect(bobEvents[0]?.data).toMatchObject({
    messageId: received.id,
    subject: "Plan",
    from: { address: alice.address },
  });
}, 90_000); // the file's first test also loads every route module (over 30 s seen under a loaded CI machine)

test("email to an inbox of the service is delivered directly when the channel is forced", async () => {
  const org = await newOrg();
  const x = await newInbox(org, "x");
  const y = await newInbox(org, "y");
  const sent = await send(org, {
    inboxId: x.id,
    to: y.address,
    channel: "email",
    subject: "Hi",
    html: "<p>Hello <b>there</b></p>",
  });
  expect(sent.body).toMatchObject({ status: "sent", channel: "email", channelMetadata: null });
  const [got] = await inboundOf(org, y.id);
  expect(got).toMatchObject({ channel: "email", hasHtml: true, textPreview: "Hello there" });
  const full = await call("GET", `/v1/messages/${got.id}`, { key: org.secret });
  expect(full.body.message.htmlBody).toBe("<p>Hello <b>there</b></p>");
});

test("external email: DKIM-signed MIME in the outbox, Delivery outcome, message.delivered", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "out");
  const sent = await send(org, {
    inboxId: inbox.id,
    to: ["success+label@simulator.amazonses.com"],
    cc: "cc@example.com",
    bcc: ["hidden@example.com"],
    subject: "Report",
    text: "See attached",
    replyTo: "replies@example.com",
    inReplyTo: "parent@example.com",
    headers: { "X-Campaign": "q4" },
    attachments: [
      { filename: "a.txt", contentBase64: Buffer.from("hello file").toString("base64"), contentType: "text/plain" },
    ],
  });
  expect(sent.status).toBe(200);
  expect(sent.body).toMatchObject({ status: "sent", channel: "email" });
  expect(sent.body.providerMessageId).toMatch(/^emb-/);

  const raw = fs.readFileSync(path.join(env.OUTBOX_DIR, `${sent.body.providerMessageId}.eml`));
  const text = raw.toString();
  expect(text).toMatch(/^DKIM-Signature: /);
  expect(text).toContain("In-Reply-To: <parent@example.com>");
  expect(text).toContain("References: <parent@example.com>");
  expect(text).toContain("X-Campaign: q4");
  expect(text).not.toContain("hidden@example.com");
  const key = await sharedDomainKey(await getDb());
  publishDns([
    { name: `${key.selector}._domainkey.${env.SHARED_DOMAIN}`, type: "TXT", value: dkimRecordValue(key.publicKey) },
  ]);
  const verdict = await dkimVerify(raw, { resolver: mailauthResolver() as never });
  // The whole status on failure: its comment says why (bad signature, no key, DNS failure).
  expect(verdict.results[0]?.status).toMatchObject({ result: "pass" });
  expect(verdict.results[0]?.signingDomain).toBe(env.SHARED_DOMAIN);

  const events = await call("GET", `/v1/messages/${sent.body.id}/events`, { key: org.secret });
  expect(events.body.events.map((e: { type: string; recipient: string }) => `${e.type}:${e.recipient}`).sort()).toEqual(
    ["Delivery:cc@example.com", "Delivery:hidden@example.com", "Delivery:success+label@simulator.amazonses.com"],
  );
  const msg = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message;
  expect(msg.channelMetadata).toMatchObject({ lastEventType: "Delivery", provider: "embedded", bouncedAt: null });
  expect(msg.attachments).toHaveLength(1);
  expect(msg.bcc).toEqual(["hidden@example.com"]);
  const att = await call("GET", `/v1/attachments/${msg.attachments[0].id}`, { key: org.secret });
  expect(att.body).toMatchObject({
    filename: "a.txt",
    contentType: "text/plain",
    sizeBytes: 10,
    disposition: "attachment",
  });
});

test("bounces and complaints follow the SES simulator; a complaint suppresses the recipient, a bounce does not", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "sim");
  const bounce = await send(org, { inboxId: inbox.id, to: "bounce@simulator.amazonses.com", text: "x" });
  const events = (await call("GET", `/v1/messages/${bounce.body.id}/events`, { key: org.secret })).body.events;
  expect(events).toEqual([
    expect.objectContaining({ type: "Bounce", bounceType: "Permanent", bounceSubType: "General" }),
  ]);
  const bounced = (await call("GET", `/v1/messages/${bounce.body.id}`, { key: org.secret })).body.message;
  expect(bounced.channelMetadata.bouncedAt).toBeTruthy();
  expect((await send(org, { inboxId: inbox.id, to: "bounce@simulator.amazonses.com", text: "again" })).status).toBe(
    200,
  );

  const complaint = await send(org, { inboxId: inbox.id, to: "complaint@simulator.amazonses.com", text: "x" });
  const cEvents = (await call("GET", `/v1/messages/${complaint.body.id}/events`, { key: org.secret })).body.events;
  expect(cEvents.map((e: { type: string }) => e.type)).toEqual(["Delivery", "Complaint"]);
  const refused = await send(org, {
    inboxId: inbox.id,
    to: ["ok@example.com", "complaint@simulator.amazonses.com"],
    text: "x",
  });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatchObject({ type: "invalid_request_error", code: "invalid_request" });
  // The console gets the same refusal with the override to offer: the field and the recipients it concerns.
  const asOwner = {
    type: "user" as const,
    userId: org.userId,
    email: null,
    org: { id: org.orgId, role: "owner" as const },
    principal: consolePrincipal({ orgId: org.orgId, userId: org.userId, role: "owner" }),
    ip: null,
  };
  const fromConsole = await invoke(sendMessage, asOwner, {
    body: { inboxId: inbox.id, to: ["ok@example.com", "complaint@simulator.amazonses.com"], text: "x" },
  }).then(
    () => null,
    (err: unknown) => actionError(err),
  );
  expect(fromConsole).toMatchObject({
    ok: false,
    error: {
      code: "invalid_request",
      param: "to",
      override: { field: "ignoreComplaints", recipients: ["complaint@simulator.amazonses.com"] },
    },
  });
  const overridden = await send(org, {
    inboxId: inbox.id,
    to: "complaint@simulator.amazonses.com",
    text: "x",
    ignoreComplaints: true,
  });
  expect(overridden.body.status).toBe("sent");
  expect(overridden.body.warnings).toEqual([
    expect.objectContaining({
      recipient: "complaint@simulator.amazonses.com",
      reason: "complaint",
      sourceMessageId: complaint.body.id,
      complaintFeedbackType: "abuse",
    }),
  ]);
  // The console's reply box: a reply to the complainer is refused with the same override, and sent with it.
  const threadId = (await call("GET", `/v1/messages/${complaint.body.id}`, { key: org.secret })).body.message.threadId;
  const refusedReply = await invoke(replyInThread, asOwner, { params: { threadId }, body: { text: "a reply" } }).then(
    () => null,
    (err: unknown) => actionError(err),
  );
  expect(refusedReply).toMatchObject({
    ok: false,
    error: {
      code: "invalid_request",
      override: { field: "ignoreComplaints", recipients: ["complaint@simulator.amazonses.com"] },
    },
  });
  const reply = await invoke(replyInThread, asOwner, {
    params: { threadId },
    body: { text: "a reply", ignoreComplaints: true },
  });
  expect(reply.data.status).toBe("sent");
  const db = await getDb();
  const types = (await db.select().from(ledgerEvents).where(eq(ledgerEvents.orgId, org.orgId))).map((e) => e.type);
  expect(types).toEqual(
    expect.arrayContaining(["message.sent", "message.bounced", "message.delivered", "message.complained"]),
  );
});

test("the send rules refuse what the spec refuses, naming the field", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "rules");
  const other = await newInbox(org, "other");
  const base = { inboxId: inbox.id, to: "someone@example.com", text: "x" };
  const cases: [Record<string, unknown>, number, string][] = [
    [{ ...base, channel: "fax" }, 400, "channel"],
    [{ ...base, channel: "sms" }, 400, "to"], // an email address is not an E.164 number
    [{ ...base, channel: "a2a" }, 400, "channel"],
    [{ ...base, to: other.address, sendAt: new Date(Date.now() + 60_000).toISOString() }, 400, "sendAt"],
    [{ ...base, react: { source: "x" } }, 400, "react.source"],
    [{ ...base, react: { source: "export default () => null" }, html: "<p>x</p>" }, 400, "react"],
    [{ ...base, template: { id: "t" } }, 400, "template"],
    [{ ...base, text: undefined, template: { id: "no-such-template" } }, 404, "template.id"],
    [{ ...base, contactId: "@bob" }, 404, "contactId"],
    [{ ...base, to: "@alias" }, 404, "to"],
    [{ ...base, to: ["ok@example.com", "not-an-email"] }, 400, "to[1]"],
    [{ ...base, attachments: [{ contentBase64: "aGk=" }] }, 400, "attachments[0].filename"],
    [{ ...base, attachments: [{ objectId: "obj_1", filename: "x" }] }, 404, "attachments[0].objectId"],
    [
      { ...base, attachments: Array.from({ length: 11 }, () => ({ filename: "a", contentBase64: "aGk=" })) },
      400,
      "attachments",
    ],
    [{ ...base, attachments: [{ filename: "x".repeat(121), contentBase64: "aGk=" }] }, 400, "attachments[0].filename"],
    [
      {
        ...base,
        attachments: [{ filename: "big", contentBase64: Buffer.alloc(8 * 1024 * 1024 + 1).toString("base64") }],
      },
      413,
      "attachments[0]",
    ],
    [{ ...base, sendAt: "2030-01-01T10:00:00" }, 400, "sendAt"],
    [{ ...base, sendAt: new Date(Date.now() + 31 * 86_400_000).toISOString() }, 400, "sendAt"],
    [{ ...base, references: Array.from({ length: 33 }, (_, i) => `r${i}@x`) }, 400, "references"],
    [{ ...base, inReplyTo: "x".repeat(251) }, 400, "inReplyTo"],
    [{ ...base, headers: { Subject: "spoof" } }, 400, "headers.Subject"],
    [{ ...base, replyToMessageId: "01930000-0000-7000-8000-000000000000" }, 404, "replyToMessageId"],
    [{ ...base, unknownField: 1 }, 400, "unknownField"],
  ];
  for (const [body, status, param] of cases) {
    const res = await send(org, body);
    expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(status);
    expect(res.body.error.param, JSON.stringify(body).slice(0, 120)).toBe(param);
  }
  const first = await send(org, { inboxId: inbox.id, to: other.address, text: "root" });
  const msgId = (await inboundOf(org, other.id))[0].id;
  void first;
  const disagree = await send(org, {
    inboxId: other.id,
    to: inbox.address,
    replyToMessageId: msgId,
    inReplyTo: "<different@x>",
  });
  expect(disagree.status).toBe(400);
  expect(disagree.body.error.param).toBe("inReplyTo");
});

test("inbox restrictions: paused inboxes neither send nor receive; a key's inboxIds are enforced", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "p");
  const other = await newInbox(org, "q");
  const restricted = await newKey(org, { scopes: ["messages"], inboxIds: [other.id] });
  const res = await call("POST", "/v1/messages", {
    key: restricted.secret,
    body: { inboxId: inbox.id, to: "a@example.com", text: "x" },
  });
  expect(res.status).toBe(403);
  expect(res.body.error).toMatchObject({ code: "not_permitted", param: "inboxId" });
  expect(
    (
      await call("POST", "/v1/messages", {
        key: restricted.secret,
        body: { inboxId: other.id, to: "a@example.com", text: "x" },
      })
    ).status,
  ).toBe(200);

  await call("PATCH", `/v1/inboxes/${inbox.id}`, { key: org.secret, body: { status: "paused" } });
  const paused = await send(org, { inboxId: inbox.id, to: "a@example.com", text: "x" });
  expect(paused.status).toBe(403);
  expect(paused.body.error.message).toContain("paused");
  const toPaused = await send(org, { inboxId: other.id, to: inbox.address, text: "x" });
  expect(toPaused.status).toBe(400);
  const emailToPaused = await send(org, { inboxId: other.id, to: inbox.address, text: "x", channel: "email" });
  expect(emailToPaused.body.status).toBe("sent");
  const events = (await call("GET", `/v1/messages/${emailToPaused.body.id}/events`, { key: org.secret })).body.events;
  expect(events).toEqual([expect.objectContaining({ type: "Bounce", bounceType: "Permanent" })]);
});

test("dryRun previews and creates nothing; Idempotency-Key and idempotencyKey replay one send", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "dry");
  const preview = await send(org, {
    inboxId: inbox.id,
    to: "x@example.com",
    subject: "S",
    html: "<i>hi</i>",
    dryRun: true,
  });
  expect(preview.body).toMatchObject({
    object: "message_preview",
    status: "preview",
    channel: "email",
    subject: "S",
    textPreview: "hi",
    hasHtml: true,
  });
  expect((await call("GET", `/v1/messages?inboxId=${inbox.id}`, { key: org.secret })).body.messages).toEqual([]);

  const body = { inboxId: inbox.id, to: "x@example.com", text: "once" };
  const one = await send(org, body, { "Idempotency-Key": "send-1" });
  const two = await send(org, body, { "Idempotency-Key": "send-1" });
  expect(two.body).toEqual(one.body);
  const viaField = { inboxId: inbox.id, to: "x@example.com", text: "field", idempotencyKey: "send-2" };
  const three = await send(org, viaField);
  const four = await send(org, viaField);
  expect(four.body).toEqual(three.body);
  expect(four.headers.get("idempotent-replayed")).toBe("true");
  expect((await send(org, { ...viaField, text: "changed" })).body.error.code).toBe("idempotency_key_mismatch");
  const db = await getDb();
  expect(
    await db
      .select()
      .from(messages)
      .where(and(eq(messages.inboxId, inbox.id), eq(messages.direction, "outbound"))),
  ).toHaveLength(2);
});

test("lists filter and paginate; batch delete reports per-id failures without aborting", async () => {
  const org = await newOrg();
  const a = await newInbox(org, "la");
  const b = await newInbox(org, "lb");
  for (let i = 0; i < 3; i++) await send(org, { inboxId: a.id, to: b.address, subject: `m${i}`, text: "x" });
  const page1 = await call("GET", `/v1/messages?inboxId=${b.id}&limit=2`, { key: org.secret });
  expect(page1.body.messages.map((m: { subject: string }) => m.subject)).toEqual(["m2", "m1"]);
  const page2 = await call("GET", `/v1/messages?inboxId=${b.id}&limit=2&cursor=${page1.body.pagination.nextCursor}`, {
    key: org.secret,
  });
  expect(page2.body.messages.map((m: { subject: string }) => m.subject)).toEqual(["m0"]);
  expect(page2.body.pagination).toEqual({ nextCursor: null, hasMore: false });
  expect(
    (await call("GET", `/v1/messages?channel=a2a&direction=outbound&inboxId=${a.id}`, { key: org.secret })).body
      .messages,
  ).toHaveLength(3);
  const threads = await call("GET", `/v1/threads?inboxId=${b.id}`, { key: org.secret });
  expect(threads.body.threads).toHaveLength(3);

  const ids = page1.body.messages.map((m: { id: string }) => m.id);
  const stranger = await newOrg();
  const del = await call("POST", "/v1/messages/batch-delete", { key: stranger.secret, body: { messageIds: ids } });
  expect(del.body).toMatchObject({ deleted: [], failed: [{ id: ids[0], code: "resource_not_found" }, { id: ids[1] }] });
  // The spec's BatchDeleteMessagesRequest: `messageIds`, uuids.
  const old = await call("POST", "/v1/messages/batch-delete", { key: org.secret, body: { ids } });
  expect(old.status).toBe(400);
  const notUuid = await call("POST", "/v1/messages/batch-delete", {
    key: org.secret,
    body: { messageIds: ["not-a-uuid"] },
  });
  expect(notUuid.body.error).toMatchObject({ code: "invalid_request", param: "messageIds[0]" });
  const missing = "01930000-0000-7000-8000-000000000000";
  const mine = await call("POST", "/v1/messages/batch-delete", {
    key: org.secret,
    body: { messageIds: [...ids, missing] },
  });
  expect(mine.body.deleted).toEqual(ids);
  expect(mine.body.failed).toEqual([{ id: missing, code: "resource_not_found", message: "No such message." }]);
  expect((await call("GET", `/v1/messages?inboxId=${b.id}`, { key: org.secret })).body.messages).toHaveLength(1);
  // One audit row for the batch, naming what it deleted; none for the stranger's batch that deleted nothing.
  const audit = await (await getDb()).select().from(auditLogs).where(eq(auditLogs.action, "message.batch_deleted"));
  expect(audit.filter((a) => a.orgId === org.orgId).map((a) => a.metadata)).toEqual([{ messageIds: ids, count: 2 }]);
  expect(audit.filter((a) => a.orgId === stranger.orgId)).toEqual([]);
});

test("attachment bytes download with a key, and through a signed URL until it expires", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "files");
  const sent = await send(org, {
    inboxId: inbox.id,
    to: "x@example.com",
    text: "x",
    attachments: [
      { filename: "r é.csv", contentType: "text/csv", contentBase64: Buffer.from("a,b\n1,2\n").toString("base64") },
    ],
  });
  const att = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message.attachments[0];

  const { callRaw, loadRoutes } = await import("./harness");
  const routes = await loadRoutes();
  const res = await callRaw("GET", `/v1/attachments/${att.id}/content`, { key: org.secret });
  expect(res?.status).toBe(200);
  expect(res?.headers.get("content-type")).toBe("text/csv");
  expect(res?.headers.get("content-disposition")).toContain("r%20%C3%A9.csv");
  expect(await res?.text()).toBe("a,b\n1,2\n");

  const signed = await call("GET", `/v1/attachments/${att.id}/download-url?expiresInSeconds=60`, { key: org.secret });
  expect(signed.body).toMatchObject({ attachment: { id: att.id }, expiresInSeconds: 60 });
  const files = routes.find((r) => r.template === "/files/attachments/{attachmentId}");
  const get = (url: string) =>
    files?.handlers.GET?.(new Request(url), { params: Promise.resolve({ attachmentId: att.id }) });
  const ok = await get(signed.body.downloadUrl);
  expect(ok?.status).toBe(200);
  expect(await ok?.text()).toBe("a,b\n1,2\n");
  const tampered = await get(signed.body.downloadUrl.replace(/signature=[^&]+/, "signature=forged"));
  expect(tampered?.status).toBe(403);
  const expired = new URL(signed.body.downloadUrl);
  expired.searchParams.set("expires", String(Math.floor(Date.now() / 1000) - 1));
  expect((await get(expired.toString()))?.status).toBe(403);
  expect(
    (await call("GET", `/v1/attachments/${att.id}/download-url?expiresInSeconds=604801`, { key: org.secret })).status,
  ).toBe(400);
});

test("deliveryStatus: inbox-to-inbox email and a2a are delivered at once, the simulator's outcomes and the lifecycle show through", async () => {
  const org = await newOrg();
  const a = await newInbox(org, "ds-a");
  const b = await newInbox(org, "ds-b");
  const statusOf = async (id: string) =>
    (await call("GET", `/v1/messages/${id}`, { key: org.secret })).body.message.deliveryStatus;
  const internal = await send(org, { inboxId: a.id, to: b.address, channel: "email", text: "hi" });
  expect(await statusOf(internal.body.id)).toBe("delivered");
  const a2a = await send(org, { inboxId: a.id, to: b.address, channel: "a2a", text: "hi" });
  expect(await statusOf(a2a.body.id)).toBe("delivered");
  const [received] = await inboundOf(org, b.id);
  expect(received.deliveryStatus).toBe("received");
  const complained = await send(org, { inboxId: a.id, to: "complaint@simulator.amazonses.com", text: "hi" });
  expect(await statusOf(complained.body.id)).toBe("complained");
  const bounced = await send(org, { inboxId: a.id, to: "bounce@simulator.amazonses.com", text: "hi" });
  expect(await statusOf(bounced.body.id)).toBe("bounced");
  const later = await send(org, {
    inboxId: a.id,
    to: "later@example.com",
    text: "hi",
    sendAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  expect(await statusOf(later.body.id)).toBe("scheduled");
  expect((await call("POST", `/v1/outbound-emails/${later.body.id}/cancel`, { key: org.secret })).status).toBe(200);
  expect(await statusOf(later.body.id)).toBe("canceled");
  const delivered = (await call("GET", `/v1/messages?deliveryStatus=delivered&inboxId=${a.id}`, { key: org.secret }))
    .body.messages;
  expect(delivered.map((m: { id: string }) => m.id).sort()).toEqual([internal.body.id, a2a.body.id].sort());
});
