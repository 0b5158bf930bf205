import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getDb } from "@/db";
import { ledgerEvents, messages, outbox } from "@/db/schema";
import { env } from "@/lib/env";
import { EXTRACT_KIND, performExtraction } from "@/lib/messages/extraction";
import { type FakeLlm, startFakeLlm } from "../fakes/openai";
import { call, newInbox, newOrg, type TestOrg } from "../harness";

/**
 * With an LLM provider, what reads an inbound message through it runs after the message's commit
 * (lib/messages/extraction.ts): the message is visible `pending` while the (stalled) fake LLM holds
 * its answer, with no `message.received`; then exactly one, also when the `message.extract` outbox
 * entry is performed twice.
 */
let org: TestOrg;
let llm: FakeLlm;
const saved = { url: env.LLM_BASE_URL, timeout: env.LLM_TIMEOUT_MS };
beforeAll(async () => {
  org = await newOrg();
  llm = await startFakeLlm();
  llm.answer = (req) =>
    req.body.response_format.json_schema.name === "extraction"
      ? { content: JSON.stringify({ orderId: "7", email: "buyer@example.com" }) }
      : { content: JSON.stringify({ found: true, kind: "code", value: "482193" }) };
  env.LLM_BASE_URL = llm.baseUrl;
  // Longer than any test: a model call held inside a transaction would show as a timeout.
  env.LLM_TIMEOUT_MS = 60_000;
});
afterAll(async () => {
  env.LLM_BASE_URL = saved.url;
  env.LLM_TIMEOUT_MS = saved.timeout;
  await llm.close();
});

/** An internal send from another inbox of the organization (an authenticated sender). */
async function deliver(to: { id: string; address: string }, text: string) {
  const from = await newInbox(org, "src");
  const sent = await call("POST", "/v1/messages", {
    key: org.secret,
    body: { inboxId: from.id, to: [to.address], subject: "Hello", text },
  });
  expect(sent.status).toBe(200);
  const list = await call("GET", `/v1/messages?inboxId=${to.id}`, { key: org.secret });
  return list.body.messages[0] as { id: string; extractionStatus: string | null; structured: unknown };
}

async function events(messageId: string) {
  const db = await getDb();
  return (await db.select().from(ledgerEvents).where(eq(ledgerEvents.messageId, messageId))).map((e) => e.type);
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await fn();
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const status = async (id: string) => {
  const db = await getDb();
  const [row] = await db.select().from(messages).where(eq(messages.id, id));
  return row?.extractionStatus;
};

test("a schema inbox: stored pending and committed before the LLM answers; one message.received after", async () => {
  const inbox = await newInbox(org);
  const put = await call("PUT", `/v1/inboxes/${inbox.id}/schema`, {
    key: org.secret,
    body: { schema: { orderId: { type: "integer", required: true }, email: { type: "email", required: true } } },
  });
  expect(put.status).toBe(200);
  const before = llm.requests.length;
  const release = llm.stall();
  try {
    const msg = await deliver(inbox, "order seven for the buyer");
    // The send answered and the message is readable while the LLM has not answered (it may not even
    // have been asked yet: it is asked after the commit).
    expect(msg).toMatchObject({ extractionStatus: "pending", structured: null });
    await until("the extraction request", async () => llm.requests.length > before);
    expect(await status(msg.id)).toBe("pending");
    expect(await events(msg.id)).toEqual([]);
    release();
    await until("the extraction", async () => (await status(msg.id)) !== "pending");
    const got = await call("GET", `/v1/messages/${msg.id}`, { key: org.secret });
    expect(got.body.message).toMatchObject({
      extractionStatus: "validated",
      structured: { orderId: 7, email: "buyer@example.com" },
    });
    expect(await events(msg.id)).toEqual(["message.received"]);
    // The entry is done; performing it once more changes nothing.
    const db = await getDb();
    const [entry] = await db
      .select()
      .from(outbox)
      .where(and(eq(outbox.subjectId, msg.id), eq(outbox.kind, EXTRACT_KIND)));
    expect(entry?.status).toBe("done");
    if (entry) await performExtraction(db, entry, "another-token");
    expect(await events(msg.id)).toEqual(["message.received"]);
  } finally {
    release();
  }
});

test("a pending wait: performed twice at once, and a wait registered meanwhile — one message.received, both waits resolved once", async () => {
  const inbox = await newInbox(org);
  const first = await call("POST", `/v1/inboxes/${inbox.id}/waits`, { key: org.secret, body: { timeoutSec: 120 } });
  expect(first.status).toBe(201);
  const before = llm.requests.length;
  const release = llm.stall();
  try {
    const msg = await deliver(inbox, "Order 77812345 ships 2025-03-14. Your verification code is 482 193.");
    expect(msg.extractionStatus).toBe("pending");
    await until("the match request", async () => llm.requests.length > before);
    // A takeover while the first performer waits for the LLM: a second performer of the same entry.
    const db = await getDb();
    const [entry] = await db
      .select()
      .from(outbox)
      .where(and(eq(outbox.subjectId, msg.id), eq(outbox.kind, EXTRACT_KIND)));
    expect(entry?.status).toBe("pending");
    const second = performExtraction(db, entry as typeof outbox.$inferSelect, "takeover-token");
    await until("the second match request", async () => llm.requests.length > before + 1);
    // Registered while the message is pending: its look-back skips the message (which carries the
    // code); the extraction's end resolves it.
    const later = await call("POST", `/v1/inboxes/${inbox.id}/waits`, { key: org.secret, body: { timeoutSec: 120 } });
    expect(later.body.status).toBe("pending");
    expect(await events(msg.id)).toEqual([]);
    release();
    await second;
    await until("the extraction", async () => (await status(msg.id)) !== "pending");
    for (const w of [first.body.waitId, later.body.waitId]) {
      const got = await until("the wait resolved", async () => {
        const r = await call("GET", `/v1/waits/${w}`, { key: org.secret });
        return r.body.status === "resolved" && r.body;
      });
      expect(got).toMatchObject({ result: "482193", messageId: msg.id });
    }
    await until("the first performer finished", async () => {
      const [e] = await db
        .select()
        .from(outbox)
        .where(eq(outbox.id, entry?.id ?? ""));
      return e?.status === "done";
    });
    // No schema: the status goes back to null once matched.
    expect(await status(msg.id)).toBeNull();
    const types = (await events(msg.id)).sort();
    expect(types).toEqual(["message.received", "verification.resolved", "verification.resolved"]);
  } finally {
    release();
  }
});

test("an inbox with neither a schema nor a pending wait is not deferred", async () => {
  const inbox = await newInbox(org);
  const msg = await deliver(inbox, "hello");
  expect(msg.extractionStatus).toBeNull();
  expect(await events(msg.id)).toEqual(["message.received"]);
});

test("a registration's look-back asks the LLM outside its transaction: the inbox takes messages meanwhile", async () => {
  const inbox = await newInbox(org);
  // No schema, no wait yet: stored and delivered at once.
  const msg = await deliver(inbox, "Your verification code is 482 193.");
  expect(msg.extractionStatus).toBeNull();
  const before = llm.requests.length;
  const release = llm.stall();
  try {
    const registering = call("POST", `/v1/inboxes/${inbox.id}/waits`, {
      key: org.secret,
      body: { timeoutSec: 120, fromHint: "nobody@elsewhere.example" },
    });
    const unhinted = call("POST", `/v1/inboxes/${inbox.id}/waits`, { key: org.secret, body: { timeoutSec: 120 } });
    await until("the look-back's match request", async () => llm.requests.length > before);
    // The registration holds no lock of the inbox while the LLM answers: another message lands.
    // (Were the lock held, the delivery would wait for the LLM's answer: not before the 60 s timeout.)
    const t0 = Date.now();
    const other = await deliver(inbox, "hello again");
    expect(other.id).not.toBe(msg.id);
    expect(Date.now() - t0).toBeLessThan(20_000);
    release();
    // The hinted wait's sender rule refuses the message before any matcher; the unhinted one resolves.
    expect((await registering).body.status).toBe("pending");
    expect((await unhinted).body).toMatchObject({ status: "resolved", result: "482193", messageId: msg.id });
  } finally {
    release();
  }
});

test("releasing a message the LLM extraction quarantined resolves a wait registered before it arrived", async () => {
  const inbox = await newInbox(org);
  await call("PUT", `/v1/inboxes/${inbox.id}/schema`, {
    key: org.secret,
    body: { schema: { invoice: { type: "integer", required: true } } },
  });
  const wait = await call("POST", `/v1/inboxes/${inbox.id}/waits`, { key: org.secret, body: { timeoutSec: 120 } });
  const msg = await deliver(inbox, "Your verification code is 482 193.");
  await until("the extraction", async () => (await status(msg.id)) !== "pending");
  expect(await status(msg.id)).toBe("quarantined");
  expect(await events(msg.id)).toEqual(["message.quarantined"]);
  expect((await call("GET", `/v1/waits/${wait.body.waitId}`, { key: org.secret })).body.status).toBe("pending");
  const released = await call("POST", `/v1/messages/${msg.id}/release`, { key: org.secret });
  expect(released.status).toBe(200);
  expect((await call("GET", `/v1/waits/${wait.body.waitId}`, { key: org.secret })).body).toMatchObject({
    status: "resolved",
    result: "482193",
  });
  expect((await events(msg.id)).sort()).toEqual(["message.quarantined", "message.received", "verification.resolved"]);
});
