import { eq } from "drizzle-orm";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { ledgerEvents, messages, verificationWaits } from "@/db/schema";
import { dkimRecordValue, generateDkimKey } from "@/lib/domains/dkim";
import { type SmtpReceiver, startSmtpReceiver } from "@/lib/providers/mail/smtp-receiver";
import { consolePrincipal } from "@/lib/auth/roles";
import { invoke } from "@/lib/core/invoke";
import { mcpTools } from "@/lib/mcp/catalog";
import { waitForCode } from "@/lib/waits/operations";
import { hintMatches, normalizeHint } from "@/lib/waits/hint";
import { expireDueWaits } from "@/lib/waits/service";
import { publishDns } from "../dns-server";
import { call, newInbox, newOrg, type TestOrg } from "../harness";

/**
 * Verification waits over HTTP, with mail from a real SMTP client to the built-in receiver (SPF,
 * DKIM and DMARC evaluated on loopback DNS): hinted waits resolve only from DMARC-aligned senders.
 */
let receiver: SmtpReceiver;
let org: TestOrg;
const senderDomain = `bank-${Date.now()}.example.test`;
const key = generateDkimKey();

beforeAll(async () => {
  receiver = await startSmtpReceiver({ port: 0, host: "127.0.0.1", maxBytes: 200_000, name: "mx.test" });
  org = await newOrg();
  publishDns([
    { name: senderDomain, type: "TXT", value: "v=spf1 ip4:127.0.0.1 -all" },
    { name: `${key.selector}._domainkey.${senderDomain}`, type: "TXT", value: dkimRecordValue(key.publicKey) },
    { name: `_dmarc.${senderDomain}`, type: "TXT", value: "v=DMARC1; p=reject" },
  ]);
});
afterAll(async () => {
  await receiver.close();
});

function smtp(signed: boolean) {
  return nodemailer.createTransport({
    host: "127.0.0.1",
    port: receiver.port,
    secure: false,
    ignoreTLS: true,
    name: "client.example.test",
    ...(signed ? { dkim: { domainName: senderDomain, keySelector: key.selector, privateKey: key.privateKey } } : {}),
  });
}

/** Authentic mail from the bank (SPF and DKIM aligned: DMARC pass). */
const authentic = (to: string, text: string) =>
  smtp(true).sendMail({ from: `Bank <security@${senderDomain}>`, to, subject: "Your sign-in code", text });

/** A forged From of the bank's domain, sent from elsewhere without its signature: DMARC fail. */
const forged = (to: string, text: string) =>
  smtp(false).sendMail({
    envelope: { from: "mallory@attacker.example.invalid", to: [to] },
    from: `Bank <security@${senderDomain}>`,
    to,
    subject: "Your sign-in code",
    text,
  });

const register = (inboxId: string, body: Record<string, unknown>, secret = org.secret) =>
  call("POST", `/v1/inboxes/${inboxId}/waits`, { key: secret, body });

async function eventsOf(waitId: string) {
  const db = await getDb();
  const rows = await db.select().from(ledgerEvents).where(eq(ledgerEvents.orgId, org.orgId));
  return rows.filter((e) => (e.data as { waitId?: string }).waitId === waitId);
}

describe("registration", () => {
  test("validates timeoutSec, fromHint, instruction and idempotencyKey (400 naming the field)", async () => {
    const inbox = await newInbox(org);
    const cases: [Record<string, unknown>, string][] = [
      [{ timeoutSec: 29 }, "timeoutSec"],
      [{ timeoutSec: 1801 }, "timeoutSec"],
      [{}, "timeoutSec"],
      [{ timeoutSec: 60, fromHint: "bank" }, "fromHint"],
      [{ timeoutSec: 60, fromHint: "*.example.com" }, "fromHint"],
      [{ timeoutSec: 60, fromHint: "@example.com" }, "fromHint"],
      [{ timeoutSec: 60, fromHint: `${"a".repeat(250)}.com` }, "fromHint"],
      [{ timeoutSec: 60, instruction: "x".repeat(2001) }, "instruction"],
      [{ timeoutSec: 60, idempotencyKey: "k".repeat(256) }, "idempotencyKey"],
    ];
    for (const [body, param] of cases) {
      const res = await register(inbox.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.param).toBe(param);
    }
    const ok = await register(inbox.id, { timeoutSec: 30, fromHint: "Example.COM" });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ status: "pending", fromHint: "example.com", result: null });
    expect(Date.parse(ok.body.expiresAt) - Date.parse(ok.body.createdAt)).toBe(30_000);
  });

  test("a paused inbox refuses registration; another organization's inbox and wait are 404", async () => {
    const inbox = await newInbox(org);
    const wait = (await register(inbox.id, { timeoutSec: 60 })).body;
    const other = await newOrg();
    expect((await register(inbox.id, { timeoutSec: 60 }, other.secret)).status).toBe(404);
    expect((await call("GET", `/v1/waits/${wait.waitId}`, { key: other.secret })).status).toBe(404);
    expect((await call("POST", `/v1/waits/${wait.waitId}/cancel`, { key: other.secret })).status).toBe(404);
    expect(
      (await call("PATCH", `/v1/inboxes/${inbox.id}`, { key: org.secret, body: { status: "paused" } })).status,
    ).toBe(200);
    const paused = await register(inbox.id, { timeoutSec: 60 });
    expect(paused.status).toBe(409);
    expect(paused.body.error.param).toBe("inboxId");
  });

  test("the same idempotencyKey returns the same wait, also under 5 concurrent registrations", async () => {
    const inbox = await newInbox(org);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => register(inbox.id, { timeoutSec: 120, idempotencyKey: "signup-42" })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.waitId)).size).toBe(1);
    const list = await call("GET", `/v1/inboxes/${inbox.id}/waits`, { key: org.secret });
    expect(list.body.waits).toHaveLength(1);
  });
});

describe("resolution", () => {
  test("a hinted wait resolves from the DMARC-aligned sender, never from a forged From", async () => {
    const inbox = await newInbox(org, "agent");
    const wait = (await register(inbox.id, { timeoutSec: 300, fromHint: senderDomain })).body;
    await forged(inbox.address, "Your verification code is 111222.");
    expect((await call("GET", `/v1/waits/${wait.waitId}`, { key: org.secret })).body.status).toBe("pending");
    // An unhinted wait refuses the DMARC failure too.
    const loose = (await register(inbox.id, { timeoutSec: 300, idempotencyKey: "loose" })).body;
    await forged(inbox.address, "Your verification code is 333444.");
    expect((await call("GET", `/v1/waits/${loose.waitId}`, { key: org.secret })).body.status).toBe("pending");

    await authentic(inbox.address, "Order #88812345 shipped on 2025-03-14.\nYour verification code is 905 817.");
    const got = (await call("GET", `/v1/waits/${wait.waitId}`, { key: org.secret })).body;
    expect(got).toMatchObject({
      status: "resolved",
      result: "905817",
      resultKind: "code",
      from: `security@${senderDomain}`,
    });
    expect(got.messageId).toBeTruthy();
    expect((await call("GET", `/v1/waits/${loose.waitId}`, { key: org.secret })).body.result).toBe("905817");
    const events = await eventsOf(wait.waitId);
    expect(events.map((e) => e.type)).toEqual(["verification.resolved"]);
    expect(events[0]?.data).toMatchObject({ result: "905817", messageId: got.messageId });
  });

  test("a look-alike domain and an exact-address hint of someone else do not resolve", async () => {
    const inbox = await newInbox(org);
    const lookalike = (await register(inbox.id, { timeoutSec: 300, fromHint: `secure-${senderDomain}` })).body;
    const exact = (await register(inbox.id, { timeoutSec: 300, fromHint: `alerts@${senderDomain}` })).body;
    const domain = (await register(inbox.id, { timeoutSec: 300, fromHint: senderDomain.split(".").slice(1).join(".") }))
      .body;
    await authentic(inbox.address, "Your code: 482913");
    const status = async (id: string) => (await call("GET", `/v1/waits/${id}`, { key: org.secret })).body.status;
    expect(await status(lookalike.waitId)).toBe("pending");
    expect(await status(exact.waitId)).toBe("pending");
    // The parent domain's hint matches its subdomain's authenticated sender.
    expect(await status(domain.waitId)).toBe("resolved");
  });

  test("a message received a second before registration resolves it; an older one does not", async () => {
    const inbox = await newInbox(org);
    await authentic(inbox.address, "Your one-time passcode is 640213.");
    const db = await getDb();
    await db
      .update(messages)
      .set({ receivedAt: new Date(Date.now() - 1000) })
      .where(eq(messages.inboxId, inbox.id));
    const wait = (await register(inbox.id, { timeoutSec: 60, fromHint: senderDomain })).body;
    expect(wait).toMatchObject({ status: "resolved", result: "640213" });

    const old = await newInbox(org);
    await authentic(old.address, "Your one-time passcode is 640214.");
    await db
      .update(messages)
      .set({ receivedAt: new Date(Date.now() - 60_000) })
      .where(eq(messages.inboxId, old.id));
    expect((await register(old.id, { timeoutSec: 60 })).body.status).toBe("pending");
  });

  test("an internal send from another inbox of the service resolves a wait hinted with its address", async () => {
    const from = await newInbox(org, "sender");
    const inbox = await newInbox(org);
    const wait = (await register(inbox.id, { timeoutSec: 60, fromHint: from.address, instruction: "the sign-in link" }))
      .body;
    const sent = await call("POST", "/v1/messages", {
      key: org.secret,
      body: {
        inboxId: from.id,
        to: [inbox.address],
        subject: "Sign in",
        html: '<a href="https://app.example.com/login/magic?t=9f8e">Sign in</a>',
      },
    });
    expect(sent.status).toBe(200);
    const got = (await call("GET", `/v1/waits/${wait.waitId}`, { key: org.secret })).body;
    expect(got).toMatchObject({
      status: "resolved",
      resultKind: "link",
      result: "https://app.example.com/login/magic?t=9f8e",
    });
  });
});

describe("expiry and cancel", () => {
  test("the sweeper expires a wait past its deadline with verification.expired; cancel expires a pending one", async () => {
    const inbox = await newInbox(org);
    const a = (await register(inbox.id, { timeoutSec: 60 })).body;
    const b = (await register(inbox.id, { timeoutSec: 60 })).body;
    const db = await getDb();
    await db
      .update(verificationWaits)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(verificationWaits.id, a.waitId));
    expect(await expireDueWaits(db)).toBeGreaterThanOrEqual(1);
    const expired = (await call("GET", `/v1/waits/${a.waitId}`, { key: org.secret })).body;
    expect(expired).toMatchObject({ status: "expired" });
    expect(expired.expiredAt).toBeTruthy();
    expect((await eventsOf(a.waitId)).map((e) => [e.type, (e.data as { reason: string }).reason])).toEqual([
      ["verification.expired", "timeout"],
    ]);
    // A message after expiry resolves nothing.
    await authentic(inbox.address, "Your code is 123987");
    expect((await call("GET", `/v1/waits/${a.waitId}`, { key: org.secret })).body.status).toBe("expired");

    // (On another inbox: this one's message of a moment ago would resolve a new wait at once.)
    const c = (await register((await newInbox(org)).id, { timeoutSec: 60 })).body;
    const cancelled = await call("POST", `/v1/waits/${c.waitId}/cancel`, { key: org.secret });
    expect(cancelled.body).toMatchObject({ status: "expired" });
    expect((await eventsOf(c.waitId)).map((e) => e.type)).toEqual(["verification.expired"]);
    // b resolved on the message above; cancelling it answers it as it is.
    expect((await call("POST", `/v1/waits/${b.waitId}/cancel`, { key: org.secret })).body.status).toBe("resolved");
  });
});

test("hints: exact address, domain and subdomains, never substrings", () => {
  expect(hintMatches("example.com", "a@example.com")).toBe(true);
  expect(hintMatches("example.com", "a@mail.example.com")).toBe(true);
  expect(hintMatches("example.com", "a@notexample.com")).toBe(false);
  expect(hintMatches("example.com", "a@example.com.evil.io")).toBe(false);
  expect(hintMatches("a@example.com", "b@example.com")).toBe(false);
  expect(hintMatches("a@example.com", "A@Example.com")).toBe(true);
  expect(hintMatches("+14155550100", "+14155550100")).toBe(true);
  expect(normalizeHint("example")).toBeNull();
  expect(normalizeHint("exa mple.com")).toBeNull();
});

test("the MCP tool wait_for_code registers and long-polls until the code arrives; a re-call with the key resumes", async () => {
  const tool = mcpTools().find((t) => t.name === "wait_for_code");
  expect(tool?.requiredScopes).toEqual(["messages:read"]);
  expect(tool?.inputSchema.required).toEqual(expect.arrayContaining(["inboxId", "timeoutSec"]));
  const inbox = await newInbox(org);
  const actor = {
    type: "user" as const,
    userId: org.userId,
    email: null,
    org: { id: org.orgId, role: "owner" as const },
    principal: consolePrincipal({ orgId: org.orgId, userId: org.userId, role: "owner" }),
    ip: null,
  };
  const input = {
    params: { inboxId: inbox.id },
    body: { timeoutSec: 120, fromHint: senderDomain, idempotencyKey: "mcp", waitSeconds: 1 },
  };
  const first = await invoke(waitForCode, actor, input);
  expect(first.data.status).toBe("pending");
  const [second] = await Promise.all([
    invoke(waitForCode, actor, { ...input, body: { ...input.body, waitSeconds: 30 } }),
    authentic(inbox.address, "Your Example verification code: 771204"),
  ]);
  expect(second.data).toMatchObject({ waitId: first.data.waitId, status: "resolved", result: "771204" });
});
