import fs from "node:fs";
import path from "node:path";
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { GET as unsubscribePage, POST as unsubscribePost } from "@/app/u/[token]/route";
import { getDb } from "@/db";
import { ledgerEvents, messages, outboundEvents, outbox } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { env } from "@/lib/env";
import { deliverQueuedMessages } from "@/lib/messages/handoff";
import { claimOutbox, drainOutbox } from "@/lib/outbox/relay";
import { mailTransport, type OutboundMail, type SendResult } from "@/lib/providers/mail";
import { call, newInbox, newOrg, type TestOrg } from "./harness";
import { newContact, newTemplate } from "./resources";
import { type Harness, sleep, startHarness } from "./workflows/harness";

/**
 * Audiences and broadcasts (issue 15) through /v1 and the app's real workflow functions: members by
 * address and by contact, the snapshot, one message per active member with its one-click
 * unsubscribe link, suppressed and unsubscribed members skipped, per-member idempotency.
 */
let h: Harness;
let org: TestOrg;
let inbox: { id: string; address: string };
beforeAll(async () => {
  h = await startHarness();
  await h.serveApp(inngest, functions);
  h.executor.start();
  org = await newOrg();
  inbox = await newInbox(org, "news");
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const key = () => ({ key: org.secret });

async function settled(broadcastId: string, ms = 60_000) {
  const db = await getDb();
  const deadline = Date.now() + ms;
  for (;;) {
    // Only this organization's entries: other test files share the PostgreSQL database and hold leases.
    const mine = await db
      .select({ id: outbox.id })
      .from(outbox)
      .where(and(eq(outbox.orgId, org.orgId), eq(outbox.status, "pending")));
    if (mine.length > 0) await drainOutbox(db, { ignoreLeases: true, ids: mine.map((r) => r.id) });
    const res = await call("GET", `/v1/broadcasts/${broadcastId}`, key());
    if (res.body.broadcast?.status === "completed") return res.body.broadcast;
    if (Date.now() > deadline) throw new Error(`broadcast not completed: ${JSON.stringify(res.body)}`);
    await sleep(100);
  }
}

describe("audiences", () => {
  test("members by address and by contact; duplicates merged; imported counts the new ones; paged detail; remove; delete", async () => {
    const created = await call("POST", "/v1/audiences", {
      ...key(),
      body: { name: "Newsletter", description: "Monthly" },
    });
    expect(created.status).toBe(200);
    expect(created.body.list).toMatchObject({
      object: "audience",
      name: "Newsletter",
      description: "Monthly",
      status: "active",
      memberCount: 0,
    });
    const id = created.body.list.id;
    const tag = Date.now().toString(36);
    const contact = await newContact(org, {
      alias: `reader-${tag}`,
      handles: [{ channel: "email", value: `Reader-${tag}@Example.com`, isPrimary: true }],
    });

    const add = await call("POST", `/v1/audiences/${id}/members`, {
      ...key(),
      body: {
        members: [
          { email: "A@example.com", name: "A" },
          { email: "a@example.com" },
          { contact: `@reader-${tag}` },
          { email: `contact:${contact.id}` },
          { email: "b@example.com", metadata: { plan: "pro" } },
        ],
      },
    });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({ audienceId: id, imported: 3 });
    const again = await call("POST", `/v1/audiences/${id}/members`, {
      ...key(),
      body: { members: [{ email: "b@example.com" }, { email: "c@example.com" }] },
    });
    expect(again.body.imported).toBe(1);

    const page1 = await call("GET", `/v1/audiences/${id}?limit=2`, key());
    expect(page1.body.list.memberCount).toBe(4);
    expect(page1.body.members).toHaveLength(2);
    expect(page1.body.pagination.hasMore).toBe(true);
    const page2 = await call("GET", `/v1/audiences/${id}?limit=2&cursor=${page1.body.pagination.nextCursor}`, key());
    const all = [...page1.body.members, ...page2.body.members];
    expect(all.map((m: { email: string }) => m.email).sort()).toEqual([
      "a@example.com",
      "b@example.com",
      "c@example.com",
      `reader-${tag}@example.com`,
    ]);
    expect(all.find((m: { email: string }) => m.email.startsWith("reader"))).toMatchObject({
      contactId: contact.id,
      source: "contact",
      status: "active",
    });
    expect(all.find((m: { email: string }) => m.email === "a@example.com")).toMatchObject({
      name: "A",
      contactId: null,
    });

    const bad = await call("POST", `/v1/audiences/${id}/members`, {
      ...key(),
      body: { members: [{ email: "ok@example.com" }, { email: "nope" }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("members[1].email");
    const unknown = await call("POST", `/v1/audiences/${id}/members`, {
      ...key(),
      body: { members: [{ contact: "@nobody-at-all" }] },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe("members[0].contact");

    const b = all.find((m: { email: string }) => m.email === "b@example.com");
    expect((await call("DELETE", `/v1/audiences/${id}/members/${b.id}`, key())).body).toEqual({
      deleted: true,
      id: b.id,
    });
    expect((await call("DELETE", `/v1/audiences/${id}/members/${b.id}`, key())).status).toBe(404);
    const list = await call("GET", "/v1/audiences", key());
    expect(list.body.audiences.find((a: { id: string }) => a.id === id)).toMatchObject({ memberCount: 3 });
    expect((await call("DELETE", `/v1/audiences/${id}`, key())).body).toEqual({ deleted: true, id });
    expect((await call("GET", `/v1/audiences/${id}`, key())).status).toBe(404);
  });
});

describe("broadcasts", () => {
  test("one message per active member with a signed one-click unsubscribe; suppressed and unsubscribed members skipped; members added later are not in it; a repeat reaches nobody twice", async () => {
    const db = await getDb();
    // A complaint suppresses its address in this organization.
    const complainer = "complaint@simulator.amazonses.com";
    expect(
      (
        await call("POST", "/v1/messages", {
          ...key(),
          body: { inboxId: inbox.id, to: complainer, subject: "x", text: "x" },
        })
      ).status,
    ).toBe(200);

    const audience = (await call("POST", "/v1/audiences", { ...key(), body: { name: "Launch" } })).body.list.id;
    const emails = Array.from({ length: 30 }, (_, i) => `member${String(i).padStart(2, "0")}@example.com`);
    // The first member is added as a contact: its messages are linked to it.
    const reader = await newContact(org, { handles: [{ channel: "email", value: emails[0] ?? "" }] });
    await call("POST", `/v1/audiences/${audience}/members`, {
      ...key(),
      body: {
        members: [{ contact: `contact:${reader.id}` }, ...[...emails.slice(1), complainer].map((email) => ({ email }))],
      },
    });

    const refused = await call("POST", `/v1/audiences/${audience}/send`, {
      ...key(),
      body: { inboxId: inbox.id, to: "x@example.com", text: "x" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "invalid_request", param: "to" });
    const sendAt = await call("POST", `/v1/audiences/${audience}/send`, {
      ...key(),
      body: { inboxId: inbox.id, sendAt: new Date(Date.now() + 60_000).toISOString(), text: "x" },
    });
    expect(sendAt.body.error?.param).toBe("sendAt");

    const t = await newTemplate(org);
    const res = await call("POST", `/v1/audiences/${audience}/send`, {
      ...key(),
      body: { inboxId: inbox.id, template: { id: t.slug, variables: { name: "friend" } } },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ object: "broadcast", audienceId: audience, status: "queued" });
    expect(res.body.id).toMatch(/^bcast_[0-9a-f]{32}$/);
    // Added after it was queued: not in the snapshot.
    await call("POST", `/v1/audiences/${audience}/members`, {
      ...key(),
      body: { members: [{ email: "late@example.com" }] },
    });

    const done = await settled(res.body.id);
    expect(done).toMatchObject({
      status: "completed",
      counts: { total: 31, sent: 30, failed: 0, suppressed: 1, pending: 0 },
      template: { id: t.id, version: 1 },
    });
    const sent = await db
      .select()
      .from(messages)
      .where(and(isNotNull(messages.broadcastId), eq(messages.inboxId, inbox.id), eq(messages.subject, "Hi friend")));
    expect(sent.map((m) => m.to[0]).sort()).toEqual(emails);
    expect(sent.every((m) => m.status === "sent")).toBe(true);
    // Completed when the last member's message was handed to the transport, not when the members were planned.
    const lastSent = Math.max(...sent.map((m) => m.sentAt?.getTime() ?? Infinity));
    expect(Date.parse(done.completedAt)).toBeGreaterThanOrEqual(lastSent);
    expect(sent.filter((m) => m.contactId !== null).map((m) => [m.to[0], m.contactId])).toEqual([
      [emails[0], reader.id],
    ]);

    // The wire form: List-Unsubscribe with a link to this service, one-click, both DKIM-signed.
    const raw = fs.readFileSync(path.join(env.OUTBOX_DIR, `${sent[0]?.providerMessageId}.eml`)).toString();
    const link = /^List-Unsubscribe:\s*<([^>]+)>/m.exec(raw)?.[1] ?? "";
    expect(link).toMatch(/\/u\/u1\.[0-9a-f-]{36}\.[A-Za-z0-9_-]+$/);
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);
    const signed = (/^DKIM-Signature:[\s\S]*?h=([^;]+);/m.exec(raw)?.[1] ?? "")
      .split(":")
      .map((f) => f.trim().toLowerCase());
    expect(signed).toEqual(expect.arrayContaining(["list-unsubscribe", "list-unsubscribe-post"]));

    // One-click: GET only shows the page; POST unsubscribes; a tampered token is unknown.
    const token = link.split("/u/")[1] ?? "";
    const ctx = (tok: string) => ({ params: Promise.resolve({ token: tok }) });
    const page = await unsubscribePage(new Request(link), ctx(token));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Unsubscribe from Launch?");
    const post = await unsubscribePost(
      new Request(link, { method: "POST", body: "List-Unsubscribe=One-Click" }),
      ctx(token),
    );
    expect(post.status).toBe(200);
    expect(await post.text()).toContain("You are unsubscribed");
    const tampered = token.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    expect((await unsubscribePost(new Request(link, { method: "POST" }), ctx(tampered))).status).toBe(404);
    const members = (await call("GET", `/v1/audiences/${audience}?status=unsubscribed`, key())).body.members;
    expect(members.map((m: { email: string }) => m.email)).toEqual([sent[0]?.to[0]]);

    // The same broadcast again: every member was reached under the same per-member keys.
    const repeat = await call("POST", `/v1/audiences/${audience}/send`, {
      ...key(),
      body: { inboxId: inbox.id, template: { id: t.slug, variables: { name: "friend" } } },
    });
    expect(repeat.status).toBe(202);
    const second = await settled(repeat.body.id);
    // The snapshot now has the late member and not the unsubscribed one; only the late member is new.
    expect(second.counts).toMatchObject({ total: 31, sent: 1, failed: 0, pending: 0, suppressed: 30 });
  }, 120_000);

  test("a chunk's members handed off as a batch: each message sent with its own events in order, a failed handoff failed alone, an entry whose lease another relay holds left to it", async () => {
    const db = await getDb();
    const audience = (await call("POST", "/v1/audiences", { ...key(), body: { name: "Batch" } })).body.list.id;
    const emails = ["b0@example.com", "b1@example.com", "b2@example.com", "b3@example.com", "b4@example.com"];
    await call("POST", `/v1/audiences/${audience}/members`, {
      ...key(),
      body: { members: emails.map((email) => ({ email })) },
    });
    const res = await call("POST", `/v1/audiences/${audience}/send`, {
      ...key(),
      body: { inboxId: inbox.id, subject: "Batch", text: "x" },
    });
    expect(res.status).toBe(202);
    // Made (queued, entries left to the relay), not yet handed off: the test drains them itself.
    const made = async () =>
      db
        .select({ id: messages.id, to: messages.to, status: messages.status })
        .from(messages)
        .where(and(eq(messages.orgId, org.orgId), eq(messages.subject, "Batch")));
    for (let i = 0; (await made()).length < emails.length; i++) {
      if (i > 300) throw new Error("the broadcast's messages were not made");
      await sleep(100);
    }
    const rows = await made();
    expect(rows.map((r) => r.status)).toEqual(emails.map(() => "queued"));
    const idOf = (email: string) => rows.find((r) => r.to[0] === email)?.id ?? "";
    const entries = await db
      .select()
      .from(outbox)
      .where(
        inArray(
          outbox.subjectId,
          rows.map((r) => r.id),
        ),
      );
    const claimed = await claimOutbox(db, 10, { ignoreLeases: true, ids: entries.map((e) => e.id) });
    expect(claimed).toHaveLength(emails.length);
    const token = claimed[0]?.token ?? "";
    // Another relay took b3's entry over meanwhile.
    const stolen = entries.find((e) => e.subjectId === idOf("b3@example.com"));
    await db
      .update(outbox)
      .set({ leaseToken: "another-relay" })
      .where(eq(outbox.id, stolen?.id ?? ""));
    // The transport refuses b1.
    const transport = mailTransport() as { send: (m: OutboundMail) => Promise<SendResult> };
    const real = transport.send.bind(transport);
    transport.send = (m) => (m.envelope.to.includes("b1@example.com") ? Promise.reject(new Error("refused")) : real(m));
    try {
      await deliverQueuedMessages(
        db,
        claimed.map((c) => c.row),
        token,
      );
    } finally {
      transport.send = real;
    }
    const after = new Map((await made()).map((r) => [r.to[0], r.status]));
    expect(emails.map((e) => after.get(e))).toEqual(["sent", "failed", "sent", "queued", "sent"]);
    const finished = new Map(
      (
        await db
          .select()
          .from(outbox)
          .where(
            inArray(
              outbox.id,
              entries.map((e) => e.id),
            ),
          )
      ).map((e) => [e.subjectId, e.status]),
    );
    expect(emails.map((e) => finished.get(idOf(e)))).toEqual(["done", "failed", "done", "pending", "done"]);
    for (const email of emails) {
      const events = await db
        .select()
        .from(ledgerEvents)
        .where(eq(ledgerEvents.messageId, idOf(email)))
        .orderBy(ledgerEvents.position);
      const expected = after.get(email) === "sent" ? ["message.sent", "message.delivered"] : [];
      expect(events.map((e) => e.type)).toEqual(expected);
      if (events.length === 2) expect(events[1]?.seq).toBe((events[0]?.seq ?? 0) + 1);
      const outcomes = await db
        .select()
        .from(outboundEvents)
        .where(eq(outboundEvents.messageId, idOf(email)));
      expect(outcomes.map((o) => [o.type, o.recipient])).toEqual(
        after.get(email) === "sent" ? [["Delivery", email]] : [],
      );
    }
    // The partition's sequence has no gap and no repeat across the batch.
    const seqs = (
      await db
        .select({ seq: ledgerEvents.seq })
        .from(ledgerEvents)
        .where(
          inArray(
            ledgerEvents.messageId,
            rows.map((r) => r.id),
          ),
        )
    )
      .map((e) => Number(e.seq))
      .sort((x, y) => x - y);
    expect(seqs).toHaveLength(6);
    expect(seqs.every((q, i) => i === 0 || q === (seqs[i - 1] ?? 0) + 1)).toBe(true);
  }, 60_000);

  test("another organization's audience and broadcast are unknown", async () => {
    const other = await newOrg();
    const theirs = (await call("POST", "/v1/audiences", { key: other.secret, body: { name: "Theirs" } })).body.list.id;
    const res = await call("POST", `/v1/audiences/${theirs}/send`, {
      ...key(),
      body: { inboxId: inbox.id, text: "x" },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.param).toBe("audienceId");
    expect((await call("GET", "/v1/broadcasts/bcast_00000000000000000000000000000000", key())).status).toBe(404);
  });
});
