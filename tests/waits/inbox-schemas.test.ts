import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { ledgerEvents } from "@/db/schema";
import { call, newInbox, newKey, newOrg, type TestOrg } from "../harness";

/** Schema inboxes: the contract's validation, extraction with coercion, and the four outcomes. */
let org: TestOrg;
beforeAll(async () => {
  org = await newOrg();
});

const SCHEMA = {
  orderId: { type: "integer", required: true },
  amount: "number",
  paid: "boolean",
  email: { type: "email", required: true },
  status: { type: "enum", values: ["new", "shipped"] },
  tags: { type: "array", items: { type: "string" } },
  due: "date",
};

const put = (inboxId: string, body: unknown, secret = org.secret) =>
  call("PUT", `/v1/inboxes/${inboxId}/schema`, { key: secret, body });

/** An internal send from another inbox: lands in `to` as an inbound message of any channel would. */
async function deliver(to: { id: string; address: string }, body: { text?: string; attachments?: unknown[] }) {
  const from = await newInbox(org, "src");
  const sent = await call("POST", "/v1/messages", {
    key: org.secret,
    body: { inboxId: from.id, to: [to.address], subject: "Order", ...body },
  });
  expect(sent.status).toBe(200);
  const list = await call("GET", `/v1/messages?inboxId=${to.id}`, { key: org.secret });
  return list.body.messages[0];
}

async function eventTypes(messageId: string) {
  const db = await getDb();
  return (await db.select().from(ledgerEvents).where(eq(ledgerEvents.messageId, messageId))).map((e) => e.type);
}

describe("the schema contract", () => {
  test("PUT/GET/DELETE; invalid contracts are 400 and leave the stored schema unchanged", async () => {
    const inbox = await newInbox(org);
    expect((await call("GET", `/v1/inboxes/${inbox.id}/schema`, { key: org.secret })).status).toBe(404);
    const ok = await put(inbox.id, { schema: SCHEMA });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ onValidationError: "quarantine", schema: { amount: { type: "number" } } });
    for (const bad of [
      { schema: { x: "money" } },
      { schema: ["string"] },
      { schema: "string" },
      {},
      { schema: { x: "string" }, onValidationError: "drop" },
      { schema: { x: { type: "enum" } } },
      { schema: {} },
      { schema: { x: "string" }, extractionHint: "h".repeat(1001) },
    ]) {
      const res = await put(inbox.id, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    const got = await call("GET", `/v1/inboxes/${inbox.id}/schema`, { key: org.secret });
    expect(got.body.schema).toEqual(ok.body.schema);
    // Scopes and owners.
    const reader = await newKey(org, { scopes: ["inboxes:read"] });
    expect((await put(inbox.id, { schema: SCHEMA }, reader.secret)).status).toBe(403);
    expect((await call("GET", `/v1/inboxes/${inbox.id}/schema`, { key: reader.secret })).status).toBe(200);
    const other = await newOrg();
    expect((await call("GET", `/v1/inboxes/${inbox.id}/schema`, { key: other.secret })).status).toBe(404);
    expect((await put(inbox.id, { schema: SCHEMA }, other.secret)).status).toBe(404);
    expect((await call("DELETE", `/v1/inboxes/${inbox.id}/schema`, { key: org.secret })).body.deleted).toBe(true);
    expect((await call("GET", `/v1/inboxes/${inbox.id}/schema`, { key: org.secret })).status).toBe(404);
  });
});

describe("extraction", () => {
  test("key: value lines are coerced and validated: message.received", async () => {
    const inbox = await newInbox(org);
    await put(inbox.id, { schema: SCHEMA });
    const msg = await deliver(inbox, {
      text: "Hello,\nOrder ID: 7\nAmount: 12.50\nPaid: false\nEmail: Buyer@Example.com\nStatus: Shipped\nTags: a, b\nDue: 2026-01-31\n",
    });
    expect(msg.extractionStatus).toBe("validated");
    expect(msg.structured).toEqual({
      orderId: 7,
      amount: 12.5,
      paid: false,
      email: "buyer@example.com",
      status: "shipped",
      tags: ["a", "b"],
      due: "2026-01-31",
    });
    expect(await eventTypes(msg.id)).toEqual(["message.received"]);
  });

  test("a JSON attachment is extracted", async () => {
    const inbox = await newInbox(org);
    await put(inbox.id, { schema: SCHEMA });
    const json = JSON.stringify({ orderId: "42", email: "a@example.com", paid: "true" });
    const msg = await deliver(inbox, {
      text: "See attached.",
      attachments: [
        {
          filename: "order.json",
          contentType: "application/json",
          contentBase64: Buffer.from(json).toString("base64"),
        },
      ],
    });
    expect(msg).toMatchObject({
      extractionStatus: "validated",
      structured: { orderId: 42, paid: true, email: "a@example.com" },
    });
  });

  test("quarantine holds the message out of message.received; passthrough delivers it with the errors", async () => {
    const held = await newInbox(org);
    await put(held.id, { schema: SCHEMA });
    const q = await deliver(held, { text: '{"orderId": "seven", "amount": 3}' });
    expect(q.extractionStatus).toBe("quarantined");
    expect(q.extractionErrors.map((e: { field: string }) => e.field).sort()).toEqual(["email", "orderId"]);
    expect(await eventTypes(q.id)).toEqual(["message.quarantined"]);

    const open = await newInbox(org);
    await put(open.id, { schema: SCHEMA, onValidationError: "passthrough" });
    const p = await deliver(open, { text: "Order ID: 9" });
    expect(p).toMatchObject({ extractionStatus: "passthrough", structured: { orderId: 9 } });
    expect(p.extractionErrors).toEqual([{ field: "email", message: expect.any(String) }]);
    expect(await eventTypes(p.id)).toEqual(["message.received"]);

    const none = await newInbox(org);
    const s = await deliver(none, { text: "Order ID: 9" });
    expect(s).toMatchObject({ extractionStatus: null, structured: null });
  });
});
