import fs from "node:fs";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { idempotencyKeys, ledgerEvents, messages, outboundEvents, outbox, webhookQueue, webhooks } from "@/db/schema";
import { channelDefinition } from "@/lib/channels/definitions";
import { env } from "@/lib/env";
import { deliverQueuedMessage } from "@/lib/messages/handoff";
import { takeOverOutbox } from "@/lib/outbox/relay";
import { mailTransport, type OutboundMail, type SendResult } from "@/lib/providers/mail";
import { call, newInbox, newOrg, type TestOrg } from "./harness";

async function send(org: TestOrg, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call("POST", "/v1/messages", { key: org.secret, body, headers });
}

const outboxFiles = () =>
  fs.existsSync(env.OUTBOX_DIR)
    ? fs.readdirSync(env.OUTBOX_DIR).map((f) => fs.readFileSync(path.join(env.OUTBOX_DIR, f), "utf8"))
    : [];

/** Makes the mail transport take the next send and never answer; `release` restores it. */
function holdTransport(): { handedOver: Promise<void>; release: () => void } {
  const transport = mailTransport() as { send: (m: OutboundMail) => Promise<SendResult> };
  const real = transport.send.bind(transport);
  let reached!: () => void;
  const handedOver = new Promise<void>((r) => (reached = r));
  transport.send = () => {
    reached();
    return new Promise<SendResult>(() => {});
  };
  return { handedOver, release: () => (transport.send = real) };
}

/** Fails when a message's `channelMetadata` carries a key its channel's public schema does not name. */
function expectPublicMetadata(m: { channel: string; channelMetadata: Record<string, unknown> | null }) {
  if (m.channelMetadata === null) return;
  const allowed = Object.keys(channelDefinition(m.channel).metadata.shape);
  expect(Object.keys(m.channelMetadata).filter((k) => !allowed.includes(k))).toEqual([]);
}

test("channelMetadata never shows internal keys: the recipient's copy of an internal send, a2a and email", async () => {
  const a = await newOrg();
  const b = await newOrg();
  const alice = await newInbox(a, "meta-a");
  const bob = await newInbox(b, "meta-b");
  const viaA2a = await send(a, { inboxId: alice.id, to: bob.address, subject: "a2a", text: "x" });
  const viaEmail = await send(a, { inboxId: alice.id, to: bob.address, channel: "email", subject: "email", text: "y" });
  expect([viaA2a.body.status, viaEmail.body.status]).toEqual(["sent", "sent"]);
  expectPublicMetadata(viaA2a.body);

  // Stored, the copies do carry the sender's internal keys; no response may.
  const db = await getDb();
  const stored = await db.select().from(messages).where(eq(messages.inboxId, bob.id));
  expect(stored.map((m) => Object.keys(m.channelMetadata ?? {}).includes("senderInboxId"))).toEqual([true, true]);

  const list = (await call("GET", `/v1/messages?inboxId=${bob.id}`, { key: b.secret })).body.messages;
  expect(list).toHaveLength(2);
  for (const m of list) {
    expectPublicMetadata(m);
    expect(JSON.stringify(m)).not.toContain(alice.id);
    const one = (await call("GET", `/v1/messages/${m.id}`, { key: b.secret })).body.message;
    expectPublicMetadata(one);
    expect(one.channelMetadata).not.toHaveProperty("senderInboxId");
    expect(one.channelMetadata).not.toHaveProperty("internal");
  }
  const a2aCopy = list.find((m: { channel: string }) => m.channel === "a2a");
  expect(a2aCopy.channelMetadata).toEqual({
    receiptId: viaA2a.body.channelMetadata.receiptId,
    provenance: null,
    provenanceVerified: false,
  });
  const thread = (await call("GET", `/v1/threads/${a2aCopy.threadId}`, { key: b.secret })).body.thread;
  for (const m of thread.messages) expect(m.channelMetadata).not.toHaveProperty("senderInboxId");
});

test("a failed commit sends nothing: no message, no handoff, and the retry sends once", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "commit-fails");
  const db = await getDb();
  const subject = `never-${Date.now()}`;
  await db.execute(
    sql.raw(
      `create or replace function svc_test_refuse() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`,
    ),
  );
  await db.execute(
    sql.raw(
      `create trigger svc_test_refuse_outbox before insert on outbox for each row when (new.org_id = '${org.orgId}') execute function svc_test_refuse()`,
    ),
  );
  try {
    const failed = await send(
      org,
      { inboxId: inbox.id, to: "someone@example.com", subject, text: "x" },
      { "Idempotency-Key": "commit-1" },
    );
    expect(failed.status).toBe(500);
  } finally {
    await db.execute(sql.raw(`drop trigger svc_test_refuse_outbox on outbox`));
  }
  expect(await db.select().from(messages).where(eq(messages.inboxId, inbox.id))).toEqual([]);
  expect(outboxFiles().filter((f) => f.includes(subject))).toEqual([]);

  const retried = await send(
    org,
    { inboxId: inbox.id, to: "someone@example.com", subject, text: "x" },
    { "Idempotency-Key": "commit-1" },
  );
  expect(retried.body.status).toBe("sent");
  expect(outboxFiles().filter((f) => f.includes(subject))).toHaveLength(1);
});

test("a process that dies between commit and handoff: the relay delivers once, the retry answers without sending again", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "dies");
  const db = await getDb();
  const subject = `crash-${Date.now()}`;
  // The transport never answers: the request stands for a process that died after its commit.
  const { handedOver, release } = holdTransport();
  const body = { inboxId: inbox.id, to: "success@simulator.amazonses.com", subject, text: "exactly once" };
  void send(org, body, { "Idempotency-Key": "crash-1" });
  await handedOver;
  release();

  const [queued] = await db.select().from(messages).where(eq(messages.inboxId, inbox.id));
  if (!queued) throw new Error("the send was not committed");
  expect(queued.status).toBe("queued");
  expect(queued.idempotencyKey).toBe("crash-1");
  const [entry] = await db.select().from(outbox).where(eq(outbox.subjectId, queued.id));
  if (!entry) throw new Error("no outbox entry");
  expect(entry.status).toBe("pending");

  // While the lease holds, no relay takes the entry.
  expect(await takeOverOutbox(db, entry.id)).toBe(false);
  // The process is gone: its memory of performing the entry, its lease and its idempotency claim.
  (globalThis as { __svcOutboxPerforming?: Set<string> }).__svcOutboxPerforming?.delete(entry.id);
  await db
    .update(outbox)
    .set({ leaseUntil: new Date(Date.now() - 1000) })
    .where(eq(outbox.id, entry.id));
  await db
    .update(idempotencyKeys)
    .set({ createdAt: new Date(Date.now() - 3_600_000) })
    .where(and(eq(idempotencyKeys.orgId, org.orgId), eq(idempotencyKeys.key, "crash-1")));
  expect(await takeOverOutbox(db, entry.id)).toBe(true);

  const [sent] = await db.select().from(messages).where(eq(messages.id, queued.id));
  expect(sent).toMatchObject({ status: "sent", messageIdHeader: queued.messageIdHeader });
  const copies = outboxFiles().filter((f) => f.includes(subject));
  expect(copies).toHaveLength(1);
  expect(copies[0]).toContain(`Message-ID: ${queued.messageIdHeader}`);
  const events = await db.select().from(ledgerEvents).where(eq(ledgerEvents.messageId, queued.id));
  expect(events.map((e) => e.type).sort()).toEqual(["message.delivered", "message.sent"]);
  expect(events.every((e) => e.idempotencyKey === "crash-1")).toBe(true);

  const retry = await send(org, body, { "Idempotency-Key": "crash-1" });
  expect(retry.status).toBe(200);
  expect(retry.body).toMatchObject({ id: queued.id, status: "sent", providerMessageId: sent?.providerMessageId });
  expect(outboxFiles().filter((f) => f.includes(subject))).toHaveLength(1);
  expect(await db.select().from(messages).where(eq(messages.inboxId, inbox.id))).toHaveLength(1);
});

test("the header's Idempotency-Key is recorded on the message and its events", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "hdr-key");
  const sent = await send(org, { inboxId: inbox.id, to: "x@example.com", text: "k" }, { "Idempotency-Key": "hdr-1" });
  const events = await call("GET", `/v1/events?idempotencyKey=hdr-1`, { key: org.secret });
  expect(events.status).toBe(200);
  expect(events.body.data.map((e: { type: string }) => e.type)).toContain("message.sent");
  const db = await getDb();
  const [row] = await db.select().from(messages).where(eq(messages.id, sent.body.id));
  expect(row?.idempotencyKey).toBe("hdr-1");
});

test("the handoff's one statement: entry done, message sent with its outcome, events in order with their webhooks; a lost lease writes nothing", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "one-statement");
  const db = await getDb();
  const [hook] = await db
    .insert(webhooks)
    .values({ orgId: org.orgId, url: "https://hooks.example.com/x", events: ["message.sent"], secret: "whsec_dGVzdA" })
    .returning();
  const sent = await send(org, { inboxId: inbox.id, to: "someone@example.com", subject: "one", text: "x" });
  expect(sent.body.status).toBe("sent");
  const [entry] = await db.select().from(outbox).where(eq(outbox.subjectId, sent.body.id));
  expect(entry).toMatchObject({ status: "done", leaseUntil: null, lastError: null });
  expect(entry?.doneAt).toBeInstanceOf(Date);
  const [row] = await db.select().from(messages).where(eq(messages.id, sent.body.id));
  expect(row).toMatchObject({ status: "sent", outcome: "delivered", error: null });
  expect(row?.sentAt).toBeInstanceOf(Date);
  const outcomes = await db.select().from(outboundEvents).where(eq(outboundEvents.messageId, sent.body.id));
  expect(outcomes.map((o) => [o.type, o.recipient, o.orgId])).toEqual([["Delivery", "someone@example.com", org.orgId]]);
  const events = await db
    .select()
    .from(ledgerEvents)
    .where(eq(ledgerEvents.messageId, sent.body.id))
    .orderBy(ledgerEvents.position);
  expect(events.map((e) => e.type)).toEqual(["message.sent", "message.delivered"]);
  expect(events[1]?.seq).toBe((events[0]?.seq ?? 0) + 1);
  expect(events[0]?.data).toMatchObject({ messageId: sent.body.id, subject: "one", attachmentCount: 0 });
  expect(events[1]?.data).toMatchObject({ recipient: "someone@example.com", eventType: "Delivery" });
  // Only the subscribed type is queued, once.
  const queued = await db
    .select()
    .from(webhookQueue)
    .where(eq(webhookQueue.webhookId, hook?.id ?? ""));
  expect(queued.map((q) => q.eventId)).toEqual([events[0]?.eventId]);
  expect(queued[0]?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

  // A handoff whose lease another relay took over writes nothing.
  const { handedOver, release } = holdTransport();
  void send(org, { inboxId: inbox.id, to: "other@example.com", subject: "two", text: "y" });
  await handedOver;
  release();
  const [held] = await db.select().from(messages).where(eq(messages.subject, "two"));
  const [heldEntry] = await db
    .select()
    .from(outbox)
    .where(eq(outbox.subjectId, held?.id ?? ""));
  if (!held || !heldEntry) throw new Error("the second send was not committed");
  expect(await deliverQueuedMessage(db, heldEntry, "not-the-lease")).toBeNull();
  const [after] = await db.select().from(messages).where(eq(messages.id, held.id));
  expect(after).toMatchObject({ status: "queued", outcome: null });
  expect(await db.select().from(ledgerEvents).where(eq(ledgerEvents.messageId, held.id))).toEqual([]);
  expect(await db.select().from(outboundEvents).where(eq(outboundEvents.messageId, held.id))).toEqual([]);
  const [stillPending] = await db.select().from(outbox).where(eq(outbox.id, heldEntry.id));
  expect(stillPending?.status).toBe("pending");
});
