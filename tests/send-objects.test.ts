import fs from "node:fs";
import path from "node:path";
import { beforeAll, expect, test } from "vitest";
import { getDb } from "@/db";
import { scanObject } from "@/lib/buckets/scan";
import { consolePrincipal } from "@/lib/auth/roles";
import type { Actor } from "@/lib/core/actor";
import { env } from "@/lib/env";
import { invoke } from "@/lib/core/invoke";
import { replyInThread } from "@/lib/messages/operations";
import { EICAR } from "@/lib/providers/scanner";
import { cleanObject, uploadObject } from "./bucket-helpers";
import { call, callRaw, newInbox, newOrg, type TestOrg } from "./harness";

/**
 * Attachments from storage (spec: SendMessageAttachment, Messages rule 4, Limits): `objectId`
 * attaches an owned, clean object server-side; `delivery` `link` and `auto`; 24 MiB; the scan gate.
 */
let org: TestOrg;
let inbox: { id: string; address: string };
let peer: { id: string; address: string };
beforeAll(async () => {
  org = await newOrg();
  inbox = await newInbox(org, "files-from");
  peer = await newInbox(org, "files-to");
});

const send = (body: Record<string, unknown>, o: TestOrg = org) =>
  call("POST", "/v1/messages", { key: o.secret, body: { inboxId: inbox.id, ...body } });
const MiB = 1024 * 1024;

test("a clean object is attached server-side; filename and contentType override the stored ones; the MIME carries its bytes", async () => {
  const { objectId } = await cleanObject(org, {
    filename: "report.txt",
    content: "quarterly numbers\n",
    contentType: "text/plain",
  });
  const sent = await send({
    to: "success@simulator.amazonses.com",
    subject: "Report",
    text: "attached",
    attachments: [{ objectId }, { objectId, filename: "renamed.csv", contentType: "text/csv" }],
  });
  expect(sent.status).toBe(200);
  expect(sent.body.status).toBe("sent");
  const msg = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message;
  expect(
    msg.attachments.map((a: { filename: string; contentType: string; sizeBytes: number }) => [
      a.filename,
      a.contentType,
      a.sizeBytes,
    ]),
  ).toEqual([
    ["report.txt", "text/plain", 18],
    ["renamed.csv", "text/csv", 18],
  ]);
  const bytes = await callRaw("GET", `/v1/attachments/${msg.attachments[1].id}/content`, { key: org.secret });
  expect(await bytes.text()).toBe("quarterly numbers\n");
  const wire = fs.readFileSync(path.join(env.OUTBOX_DIR, `${sent.body.providerMessageId}.eml`)).toString();
  expect(wire).toContain("filename=renamed.csv");
  expect(wire).toContain(Buffer.from("quarterly numbers\n").toString("base64"));
});

test("another organization's object, an unknown id and a malformed id are 404 naming attachments[i].objectId", async () => {
  const stranger = await newOrg();
  const foreign = await cleanObject(stranger);
  for (const objectId of [foreign.objectId, "01930000-0000-7000-8000-000000000000", "not-an-id"]) {
    const res = await send({
      to: peer.address,
      text: "x",
      attachments: [{ filename: "a.txt", contentBase64: "aGk=" }, { objectId }],
    });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "resource_not_found", param: "attachments[1].objectId" });
  }
  // An upload not finalized yet is no object either.
  const buckets = (await call("GET", "/v1/buckets", { key: org.secret })).body.data as {
    id: string;
    isDefault: boolean;
  }[];
  const up = await call("POST", `/v1/buckets/${buckets.find((b) => b.isDefault)?.id}/uploads`, {
    key: org.secret,
    body: { filename: "u.txt" },
  });
  expect((await send({ to: peer.address, text: "x", attachments: [{ objectId: up.body.objectId }] })).status).toBe(404);
  expect(
    (
      await send({
        to: peer.address,
        text: "x",
        attachments: [{ objectId: foreign.objectId, contentBase64: "aGk=", filename: "a" }],
      })
    ).body.error.param,
  ).toBe("attachments[0]");
});

test("pending is 409 and infected 403 (the share links' codes), for every delivery; nothing is stored", async () => {
  const pending = await uploadObject(org, { filename: "wait.txt" });
  const infected = await uploadObject(org, {
    filename: "eicar.com",
    content: EICAR,
    contentType: "application/octet-stream",
  });
  expect((await scanObject(await getDb(), infected.objectId)).status).toBe("infected");
  const before = (await call("GET", `/v1/messages?inboxId=${inbox.id}&limit=100`, { key: org.secret })).body.messages
    .length;
  for (const delivery of ["attachment", "auto", "link"]) {
    const p = await send({
      to: "someone@example.com",
      text: "x",
      attachments: [{ objectId: pending.objectId, delivery }],
    });
    expect(p.status).toBe(409);
    expect(p.body.error).toMatchObject({ code: "conflict", param: "attachments[0].objectId" });
    const i = await send({
      to: "someone@example.com",
      text: "x",
      attachments: [{ objectId: infected.objectId, delivery }],
    });
    expect(i.status).toBe(403);
    expect(i.body.error).toMatchObject({ code: "not_permitted", param: "attachments[0].objectId" });
    expect(i.body.error.message).toContain("infected");
  }
  // The same gate as a share: refused there too.
  expect(
    (
      await call("POST", `/v1/buckets/${infected.bucketId}/objects/${infected.objectId}/share-links`, {
        key: org.secret,
        body: {},
      })
    ).status,
  ).toBe(403);
  expect(
    (await call("GET", `/v1/messages?inboxId=${inbox.id}&limit=100`, { key: org.secret })).body.messages.length,
  ).toBe(before);
});

test("24 MiB: attachments over it are 413; `auto` attaches while it fits and otherwise needs a share link in the body; `link` never edits the body", async () => {
  const big = await cleanObject(org, {
    filename: "big.bin",
    content: "a".repeat(16 * MiB),
    contentType: "application/octet-stream",
  });
  const mid = await cleanObject(org, {
    filename: "mid.bin",
    content: "b".repeat(9 * MiB),
    contentType: "application/octet-stream",
  });
  const small = await cleanObject(org, { filename: "small.txt", content: "c" });
  const dry = { to: peer.address, dryRun: true };

  const over = await send({ ...dry, text: "x", attachments: [{ objectId: big.objectId }, { objectId: mid.objectId }] });
  expect(over.status).toBe(413);
  expect(over.body.error).toMatchObject({ code: "payload_too_large", param: "attachments[1].objectId" });
  // Inline files count too: 16 MiB + 8 MiB inline is exactly the limit; one byte more is over.
  const eight = { filename: "eight.bin", contentBase64: Buffer.alloc(8 * MiB, 1).toString("base64") };
  expect((await send({ ...dry, text: "x", attachments: [{ objectId: big.objectId }, eight] })).status).toBe(200);
  const inlineOver = await send({
    ...dry,
    text: "x",
    attachments: [{ objectId: big.objectId }, eight, { objectId: small.objectId }],
  });
  expect(inlineOver.body.error).toMatchObject({ code: "payload_too_large", param: "attachments[2].objectId" });

  // `auto` past the limit without a link in the body: 413; `link` without one: 400.
  const noLink = await send({
    ...dry,
    text: "x",
    attachments: [{ objectId: big.objectId }, { objectId: mid.objectId, delivery: "auto" }],
  });
  expect(noLink.status).toBe(413);
  expect(noLink.body.error.param).toBe("attachments[1].objectId");
  const linkless = await send({ ...dry, text: "x", attachments: [{ objectId: small.objectId, delivery: "link" }] });
  expect(linkless.status).toBe(400);
  expect(linkless.body.error.param).toBe("attachments[0].delivery");

  // With a share link of the object in the body: `auto` goes by link, attachments stay within the limit.
  const share = await call("POST", `/v1/buckets/${mid.bucketId}/objects/${mid.objectId}/share-links`, {
    key: org.secret,
    body: {},
  });
  const text = `The data: ${share.body.shareUrl}`;
  const auto = await send({
    ...dry,
    text,
    attachments: [
      { objectId: mid.objectId, delivery: "auto" },
      { objectId: big.objectId },
      { objectId: small.objectId, delivery: "auto" },
    ],
  });
  expect(auto.status).toBe(200);
  expect(auto.body.attachments.map((a: { filename: string }) => a.filename)).toEqual(["big.bin", "small.txt"]);
  expect(auto.body.linked).toEqual([
    { objectId: mid.objectId, filename: "mid.bin", sizeBytes: 9 * MiB, shareLinkId: share.body.id },
  ]);
  // `auto` that fits is attached even with a link in the body.
  expect(
    (await send({ ...dry, text, attachments: [{ objectId: mid.objectId, delivery: "auto" }] })).body.attachments,
  ).toHaveLength(1);

  // `link`: sent with the body exactly as given (the /d/ URL in html counts), nothing attached.
  const html = `<p><a href="${share.body.downloadUrl}">data</a></p>`;
  const linked = await send({
    to: peer.address,
    subject: "by link",
    html,
    attachments: [{ objectId: mid.objectId, delivery: "link" }],
  });
  expect(linked.status).toBe(200);
  const msg = (await call("GET", `/v1/messages/${linked.body.id}`, { key: org.secret })).body.message;
  expect(msg.htmlBody).toBe(html);
  expect(msg.textBody).toBeNull();
  expect(msg.attachments).toEqual([]);

  // A revoked link no longer counts; nor does a link of another object.
  const other = await call("POST", `/v1/buckets/${small.bucketId}/objects/${small.objectId}/share-links`, {
    key: org.secret,
    body: {},
  });
  expect(
    (await send({ ...dry, text: other.body.shareUrl, attachments: [{ objectId: mid.objectId, delivery: "link" }] }))
      .status,
  ).toBe(400);
  expect(
    (
      await call("DELETE", `/v1/buckets/${mid.bucketId}/objects/${mid.objectId}/share-links/${share.body.id}`, {
        key: org.secret,
      })
    ).status,
  ).toBe(200);
  expect((await send({ ...dry, text, attachments: [{ objectId: mid.objectId, delivery: "link" }] })).status).toBe(400);
  // A bundle holding the object is a link of it.
  const bundle = await call("POST", "/v1/share-links/bundles", {
    key: org.secret,
    body: { objectIds: [small.objectId, mid.objectId] },
  });
  expect(bundle.status).toBe(200);
  expect(
    (await send({ ...dry, text: bundle.body.shareUrl, attachments: [{ objectId: mid.objectId, delivery: "link" }] }))
      .body.linked,
  ).toEqual([expect.objectContaining({ objectId: mid.objectId, shareLinkId: bundle.body.id })]);
});

test("replies attach stored objects: POST /v1/messages with replyToMessageId, and the reply operation (console, MCP)", async () => {
  const { objectId } = await cleanObject(org, { filename: "answer.txt", content: "42" });
  const first = await send({ to: peer.address, subject: "Question", text: "?" });
  const reply = await call("POST", "/v1/messages", {
    key: org.secret,
    body: {
      inboxId: peer.id,
      to: inbox.address,
      text: "see file",
      replyToMessageId: first.body.id,
      attachments: [{ objectId }],
    },
  });
  expect(reply.status).toBe(200);
  const got = (await call("GET", `/v1/messages/${reply.body.id}`, { key: org.secret })).body.message;
  expect(got.attachments.map((a: { filename: string }) => a.filename)).toEqual(["answer.txt"]);

  const threadId = got.threadId as string;
  const member: Actor = {
    type: "user",
    userId: org.userId,
    email: null,
    org: { id: org.orgId, role: "member" },
    principal: consolePrincipal({ orgId: org.orgId, userId: org.userId, role: "member" }),
    ip: null,
  };
  const viaOp = await invoke(replyInThread, member, {
    params: { threadId },
    body: { text: "again", attachments: [{ objectId, filename: "again.txt" }] },
  });
  const again = (await call("GET", `/v1/messages/${viaOp.data.id}`, { key: org.secret })).body.message;
  expect(again.attachments.map((a: { filename: string }) => a.filename)).toEqual(["again.txt"]);
});
