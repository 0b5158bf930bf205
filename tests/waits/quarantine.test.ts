import { and, asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { auditLogs, ledgerEvents, messages } from "@/db/schema";
import { call, newInbox, newKey, newOrg, type TestOrg } from "../harness";

/**
 * Quarantined messages of a schema inbox: release (→ `passthrough`, `message.received`, waits
 * registered before it arrived resolve) and discard (deleted), each audited, each once.
 */
let org: TestOrg;
beforeAll(async () => {
  org = await newOrg();
});

const SCHEMA = { orderId: { type: "integer", required: true } };

async function quarantineInbox() {
  const inbox = await newInbox(org);
  const put = await call("PUT", `/v1/inboxes/${inbox.id}/schema`, { key: org.secret, body: { schema: SCHEMA } });
  expect(put.status).toBe(200);
  return inbox;
}

async function deliver(to: { id: string; address: string }, text: string) {
  const from = await newInbox(org, "src");
  const sent = await call("POST", "/v1/messages", {
    key: org.secret,
    body: { inboxId: from.id, to: [to.address], subject: "Order", text },
  });
  expect(sent.status).toBe(200);
  const list = await call("GET", `/v1/messages?inboxId=${to.id}`, { key: org.secret });
  return list.body.messages[0];
}

async function events(messageId: string) {
  const db = await getDb();
  return db
    .select({ type: ledgerEvents.type, data: ledgerEvents.data })
    .from(ledgerEvents)
    .where(eq(ledgerEvents.messageId, messageId))
    .orderBy(asc(ledgerEvents.position));
}

async function auditActions(messageId: string) {
  const db = await getDb();
  const rows = await db
    .select({ action: auditLogs.action })
    .from(auditLogs)
    .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.resourceId, messageId)));
  return rows.map((r) => r.action);
}

describe("quarantine release", () => {
  test("a held message is listed, released once with message.received and an audit row", async () => {
    const inbox = await quarantineInbox();
    const held = await deliver(inbox, "Order ID: seven");
    expect(held.extractionStatus).toBe("quarantined");
    const listed = await call("GET", `/v1/messages?inboxId=${inbox.id}&extractionStatus=quarantined`, {
      key: org.secret,
    });
    expect(listed.body.messages.map((m: { id: string }) => m.id)).toEqual([held.id]);

    const released = await call("POST", `/v1/messages/${held.id}/release`, { key: org.secret });
    expect(released.status).toBe(200);
    expect(released.body.message).toMatchObject({ id: held.id, extractionStatus: "passthrough" });
    expect(released.body.message.extractionErrors).toEqual([{ field: "orderId", message: expect.any(String) }]);
    const evs = await events(held.id);
    expect(evs.map((e) => e.type)).toEqual(["message.quarantined", "message.received"]);
    expect(evs[1]?.data).toMatchObject({ released: true, extractionStatus: "passthrough" });
    expect(await auditActions(held.id)).toEqual(["message.quarantine_released"]);
    const after = await call("GET", `/v1/messages?inboxId=${inbox.id}&extractionStatus=quarantined`, {
      key: org.secret,
    });
    expect(after.body.messages).toEqual([]);

    // Once only: a second release (and a discard) of the released message is 409, nothing appended.
    const again = await call("POST", `/v1/messages/${held.id}/release`, { key: org.secret });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
    expect((await call("POST", `/v1/messages/${held.id}/discard`, { key: org.secret })).status).toBe(409);
    expect((await events(held.id)).length).toBe(2);
  });

  test("concurrent releases: one succeeds, the other is 409, one message.received", async () => {
    const inbox = await quarantineInbox();
    const held = await deliver(inbox, "no order here");
    const results = await Promise.all(
      [0, 1, 2].map(() => call("POST", `/v1/messages/${held.id}/release`, { key: org.secret })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect((await events(held.id)).filter((e) => e.type === "message.received")).toHaveLength(1);
  });

  test("a quarantined message resolves no wait; its release resolves a wait registered before", async () => {
    const inbox = await quarantineInbox();
    const wait = (await call("POST", `/v1/inboxes/${inbox.id}/waits`, { key: org.secret, body: { timeoutSec: 300 } }))
      .body;
    expect(wait.status).toBe("pending");
    const held = await deliver(inbox, "Your verification code is 482913");
    expect(held.extractionStatus).toBe("quarantined");
    expect((await call("GET", `/v1/waits/${wait.waitId}`, { key: org.secret })).body.status).toBe("pending");
    // A registration's look-back skips the held message too.
    const late = (await call("POST", `/v1/inboxes/${inbox.id}/waits`, { key: org.secret, body: { timeoutSec: 300 } }))
      .body;
    expect(late.status).toBe("pending");

    expect((await call("POST", `/v1/messages/${held.id}/release`, { key: org.secret })).status).toBe(200);
    const got = (await call("GET", `/v1/waits/${wait.waitId}`, { key: org.secret })).body;
    expect(got).toMatchObject({ status: "resolved", result: "482913", messageId: held.id });
    expect((await events(held.id)).map((e) => e.type)).toContain("verification.resolved");
  });

  test("a release resolves no wait registered long after the message arrived", async () => {
    const inbox = await quarantineInbox();
    const held = await deliver(inbox, "Your verification code is 730214");
    const db = await getDb();
    await db
      .update(messages)
      .set({ receivedAt: new Date(Date.now() - 3_600_000) })
      .where(eq(messages.id, held.id));
    const wait = (await call("POST", `/v1/inboxes/${inbox.id}/waits`, { key: org.secret, body: { timeoutSec: 300 } }))
      .body;
    expect((await call("POST", `/v1/messages/${held.id}/release`, { key: org.secret })).status).toBe(200);
    expect((await call("GET", `/v1/waits/${wait.waitId}`, { key: org.secret })).body.status).toBe("pending");
  });

  test("discard deletes the held message with an audit row; scopes and owners", async () => {
    const inbox = await quarantineInbox();
    const held = await deliver(inbox, "nothing");
    const reader = await newKey(org, { scopes: ["messages:read", "messages:send", "inboxes:read"] });
    expect((await call("POST", `/v1/messages/${held.id}/release`, { key: reader.secret })).status).toBe(403);
    expect((await call("POST", `/v1/messages/${held.id}/discard`, { key: reader.secret })).status).toBe(403);
    const other = await newOrg();
    expect((await call("POST", `/v1/messages/${held.id}/release`, { key: other.secret })).status).toBe(404);
    expect((await call("POST", `/v1/messages/${held.id}/discard`, { key: other.secret })).status).toBe(404);

    const gone = await call("POST", `/v1/messages/${held.id}/discard`, { key: org.secret });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ object: "message", id: held.id, discarded: true });
    expect((await call("GET", `/v1/messages/${held.id}`, { key: org.secret })).status).toBe(404);
    expect(await auditActions(held.id)).toEqual(["message.quarantine_discarded"]);

    // A message that was never held is not discarded this way.
    const open = await newInbox(org);
    const plain = await deliver(open, "hello");
    expect((await call("POST", `/v1/messages/${plain.id}/discard`, { key: org.secret })).status).toBe(409);
  });
});

describe("schema test pane", () => {
  test("a draft or the stored schema runs on a text; nothing is stored", async () => {
    const inbox = await newInbox(org);
    const noSchema = await call("POST", `/v1/inboxes/${inbox.id}/schema/test`, {
      key: org.secret,
      body: { text: "Order ID: 1" },
    });
    expect(noSchema.status).toBe(404);
    const draft = await call("POST", `/v1/inboxes/${inbox.id}/schema/test`, {
      key: org.secret,
      body: { schema: { orderId: "integer", paid: "boolean" }, text: "Order ID: 7\nPaid: no" },
    });
    expect(draft.status).toBe(200);
    expect(draft.body).toMatchObject({ extractionStatus: "validated", structured: { orderId: 7, paid: false } });
    await call("PUT", `/v1/inboxes/${inbox.id}/schema`, { key: org.secret, body: { schema: SCHEMA } });
    const stored = await call("POST", `/v1/inboxes/${inbox.id}/schema/test`, {
      key: org.secret,
      body: { text: "Order ID: soon" },
    });
    expect(stored.body).toMatchObject({ extractionStatus: "quarantined", structured: { orderId: "soon" } });
    expect(stored.body.extractionErrors[0].field).toBe("orderId");
    const pass = await call("POST", `/v1/inboxes/${inbox.id}/schema/test`, {
      key: org.secret,
      body: { text: "nothing", onValidationError: "passthrough" },
    });
    expect(pass.body.extractionStatus).toBe("passthrough");
    expect((await call("POST", `/v1/inboxes/${inbox.id}/schema/test`, { key: org.secret, body: {} })).status).toBe(400);
    const bad = await call("POST", `/v1/inboxes/${inbox.id}/schema/test`, {
      key: org.secret,
      body: { schema: { x: "money" }, text: "x" },
    });
    expect(bad.status).toBe(400);
    const messages = await call("GET", `/v1/messages?inboxId=${inbox.id}`, { key: org.secret });
    expect(messages.body.messages).toEqual([]);
  });
});
