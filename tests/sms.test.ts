import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { ledgerEvents, messages } from "@/db/schema";
import { env } from "@/lib/env";
import { twilioAuthToken } from "@/lib/providers/telephony/credentials";
import { SIMULATED_ACCOUNT_SID } from "@/lib/providers/telephony/credentials";
import { type FormParams, twilioSignature } from "@/lib/providers/telephony/signature";
import { type AppServer, startAppServer } from "./app-server";
import { call, newInbox, newOrg, type TestOrg } from "./harness";

/**
 * SMS as a channel end to end on the embedded simulated carrier: its status callbacks and inbound
 * SMS reach the service over real HTTP (the app's routes behind a loopback listener, registered as
 * PUBLIC_BASE_URL) in Twilio's format with `X-Twilio-Signature`, the way Twilio reaches it.
 */

let app: AppServer;
const saved = { base: env.PUBLIC_BASE_URL, step: env.PHONE_SIM_STEP_MS };
const provisioned: { org: TestOrg; id: string }[] = [];

beforeAll(async () => {
  app = await startAppServer();
  env.PUBLIC_BASE_URL = app.url;
  env.PHONE_SIM_STEP_MS = 150;
  await newInbox(await newOrg(), "warm");
}, 120_000);

afterAll(async () => {
  for (const p of provisioned) await call("POST", `/v1/phone/numbers/${p.id}/release`, { key: p.org.secret });
  env.PUBLIC_BASE_URL = saved.base;
  env.PHONE_SIM_STEP_MS = saved.step;
  await app?.close();
});

/** An organization with an inbox whose number (a random free one of the simulated carrier) is bound to it. */
async function withNumber(org?: TestOrg) {
  const o = org ?? (await newOrg());
  const inbox = await newInbox(o, "sms");
  const search = await call("GET", "/v1/phone/numbers/available?country=US&type=local&limit=100", { key: o.secret });
  const data = search.body.data as { phoneNumber: string }[];
  const phoneNumber = data[Math.floor(Math.random() * data.length)]?.phoneNumber;
  const made = await call("POST", "/v1/phone/numbers", { key: o.secret, body: { phoneNumber, inboxId: inbox.id } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  provisioned.push({ org: o, id: made.body.id });
  return { org: o, inbox, number: made.body.phoneNumber as string, numberId: made.body.id as string };
}

/** Polls the message until `done` holds (the simulated carrier's callbacks arrive on its clock). */
async function until(org: TestOrg, id: string, done: (m: any) => boolean) {
  for (let i = 0; i < 100; i++) {
    const res = await call("GET", `/v1/messages/${id}`, { key: org.secret });
    if (done(res.body.message)) return res.body.message;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`message ${id} never reached the expected state`);
}

const url = () => `${app.url}/v1/providers/twilio/events`;
let sidCounter = 0;
const newSid = () => `SM${Date.now().toString(16)}${(sidCounter++).toString(16).padStart(6, "0")}${"0".repeat(14)}`;

/** An inbound SMS callback as Twilio posts it, signed with the deployment's auth token (or `signature`). */
async function inbound(from: string, to: string, body: string, opts: { sid?: string; signature?: string | null } = {}) {
  const params: FormParams = {
    AccountSid: SIMULATED_ACCOUNT_SID,
    ApiVersion: "2010-04-01",
    MessageSid: opts.sid ?? newSid(),
    SmsStatus: "received",
    From: from,
    To: to,
    Body: body,
    NumMedia: "0",
    NumSegments: "1",
  };
  const token = await twilioAuthToken(await getDb());
  const signature = opts.signature === undefined ? twilioSignature(token, url(), params) : opts.signature;
  const res = await fetch(url(), {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(signature === null ? {} : { "X-Twilio-Signature": signature }),
    },
    body: new URLSearchParams(params as Record<string, string>).toString(),
  });
  return { status: res.status, body: await res.json(), sid: params.MessageSid as string };
}

async function inboundRows(inboxId: string) {
  return (await getDb())
    .select()
    .from(messages)
    .where(and(eq(messages.inboxId, inboxId), eq(messages.direction, "inbound")))
    .orderBy(messages.createdAt);
}

describe("outbound", () => {
  test("send → sent → delivered on the simulated carrier, with its metadata and events", async () => {
    const { org, inbox, number } = await withNumber();
    const res = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "sms", to: "+1 (312) 555-0123", text: "Your code is 4711" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "sent", channel: "sms" });
    const delivered = await until(org, res.body.id, (m) => m.deliveryStatus === "delivered");
    expect(delivered.channelMetadata).toMatchObject({
      provider: "simulated",
      fromNumber: number,
      toNumber: "+13125550123",
      segments: 1,
      encoding: "GSM-7",
      status: "delivered",
    });
    expect(delivered.channelMetadata.providerMessageId).toMatch(/^SM[0-9a-f]{32}$/);
    const types = (
      await (
        await getDb()
      )
        .select({ type: ledgerEvents.type })
        .from(ledgerEvents)
        .where(eq(ledgerEvents.messageId, res.body.id))
    ).map((e) => e.type);
    expect(types).toContain("message.sent");
    expect(types).toContain("message.delivered");
    const listed = await call("GET", `/v1/messages?inboxId=${inbox.id}&channel=sms`, { key: org.secret });
    expect(listed.body.messages.map((m: { id: string }) => m.id)).toContain(res.body.id);
  });

  test("the auto rule: E.164 recipients from an inbox with a number go by sms; without a number, not", async () => {
    const { org, inbox } = await withNumber();
    const auto = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, to: "+12125550177", text: "auto" },
    });
    expect(auto.status, JSON.stringify(auto.body)).toBe(200);
    expect(auto.body.channel).toBe("sms");
    const plain = await newInbox(org, "nonumber");
    const refused = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: plain.id, to: "+12125550177", text: "auto" },
    });
    expect(refused.status).toBe(400);
    const named = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: plain.id, channel: "sms", to: "+12125550177", text: "named" },
    });
    expect(named.status).toBe(400);
    expect(named.body.error.param).toBe("channel");
  });

  test("segments: GSM-7 and UCS-2 counted; past 10 segments 400 naming text", async () => {
    const { org, inbox } = await withNumber();
    const send = (text: string) =>
      call("POST", "/v1/messages", {
        key: org.secret,
        body: { inboxId: inbox.id, channel: "sms", to: "+12125550178", text },
      });
    const ucs = await send("Grüße 👋 from the café");
    expect(ucs.status).toBe(200);
    const m = await until(org, ucs.body.id, (x) => x.channelMetadata?.encoding !== undefined);
    expect(m.channelMetadata).toMatchObject({ encoding: "UCS-2", segments: 1 });
    expect((await send("a".repeat(1530))).status).toBe(200);
    const long = await send("a".repeat(1531));
    expect(long.status).toBe(400);
    expect(long.body.error.param).toBe("text");
    const longUcs = await send("ж".repeat(671));
    expect(longUcs.status).toBe(400);
    expect(longUcs.body.error.param).toBe("text");
    const notANumber = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "sms", to: "12125550178", text: "x" },
    });
    expect(notANumber.status).toBe(400);
    expect(notANumber.body.error.param).toBe("to");
  });

  test("the undeliverable magic number: failed with carrier error 30034, explained", async () => {
    const { org, inbox } = await withNumber();
    const res = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "sms", to: "+12025550194", text: "will not arrive" },
    });
    expect(res.status).toBe(200);
    const failed = await until(org, res.body.id, (m) => m.deliveryStatus === "failed");
    expect(failed.channelMetadata).toMatchObject({ status: "undelivered", errorCode: 30034 });
    expect(failed.channelMetadata.error).toMatch(/A2P 10DLC/);
  });
});

describe("inbound", () => {
  test("a signed inbound SMS lands in the bound inbox: threaded per number, message.received, contact linked, stored once", async () => {
    const { org, inbox, number } = await withNumber();
    const contact = await call("POST", "/v1/contacts", {
      key: org.secret,
      body: { displayName: "Ada", handles: [{ channel: "phone", value: "+1 415 555 0142" }] },
    });
    expect(contact.status, JSON.stringify(contact.body)).toBe(200);
    const first = await inbound("+14155550142", number, "Hello there");
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({ received: true, applied: 1 });
    expect((await inbound("+14155550142", number, "Anyone?")).status).toBe(200);
    expect((await inbound("+13125550166", number, "Someone else")).status).toBe(200);
    // Twilio retries: the same MessageSid is stored once.
    const again = await inbound("+14155550142", number, "Hello there", { sid: first.sid });
    expect(again.body).toEqual({ received: true, applied: 0 });

    const rows = await inboundRows(inbox.id);
    expect(rows.map((r) => [r.channel, r.fromAddress, r.textBody])).toEqual([
      ["sms", "+14155550142", "Hello there"],
      ["sms", "+14155550142", "Anyone?"],
      ["sms", "+13125550166", "Someone else"],
    ]);
    expect(rows[0]?.threadId).toBe(rows[1]?.threadId);
    expect(rows[2]?.threadId).not.toBe(rows[0]?.threadId);
    expect(rows[0]?.contactId).toBe(contact.body.contact.id);
    const events = await (await getDb())
      .select({ type: ledgerEvents.type })
      .from(ledgerEvents)
      .where(eq(ledgerEvents.partitionKey, `inbox:${inbox.id}`));
    expect(events.filter((e) => e.type === "message.received")).toHaveLength(3);
    const listed = await call("GET", `/v1/messages?inboxId=${inbox.id}&channel=sms&direction=inbound`, {
      key: org.secret,
    });
    expect(listed.body.messages[0].channelMetadata).toMatchObject({
      fromNumber: "+13125550166",
      toNumber: number,
      status: "received",
    });
  });

  test("a missing or wrong X-Twilio-Signature is 401 and stores nothing", async () => {
    const { inbox, number } = await withNumber();
    const missing = await inbound("+14155550142", number, "forged", { signature: null });
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe("invalid_signature");
    const wrong = await inbound("+14155550142", number, "forged", { signature: "bm9wZQ==" });
    expect(wrong.status).toBe(401);
    expect(await inboundRows(inbox.id)).toEqual([]);
  });

  test("STOP suppresses the number (a send is 400, even with ignoreComplaints); START lifts it", async () => {
    const { org, inbox, number } = await withNumber();
    const them = "+13125550171";
    expect((await inbound(them, number, " stop ")).status).toBe(200);
    const send = (extra: Record<string, unknown> = {}) =>
      call("POST", "/v1/messages", {
        key: org.secret,
        body: { inboxId: inbox.id, channel: "sms", to: them, text: "promo", ...extra },
      });
    const refused = await send();
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe("to");
    const overridden = await send({ ignoreComplaints: true });
    expect(overridden.status).toBe(400);
    expect(overridden.body.error.message).toMatch(/STOP/);
    expect((await inbound(them, number, "START")).status).toBe(200);
    expect((await send()).status).toBe(200);
  });

  test("two numbers of the simulated carrier text each other: the message arrives in the other inbox", async () => {
    const a = await withNumber();
    const b = await withNumber();
    const res = await call("POST", "/v1/messages", {
      key: a.org.secret,
      body: { inboxId: a.inbox.id, channel: "sms", to: b.number, text: "ping from A" },
    });
    expect(res.status).toBe(200);
    for (let i = 0; i < 100 && (await inboundRows(b.inbox.id)).length === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    const rows = await inboundRows(b.inbox.id);
    expect(rows.map((r) => [r.fromAddress, r.textBody])).toEqual([[a.number, "ping from A"]]);
  });
});
