import { readdirSync } from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { inboxes, ledgerEvents, messages } from "@/db/schema";
import { CHANNELS, CHANNELS_BY_DEFAULT, channelAdapter, refuseForeignOptions } from "@/lib/channels";
import {
  CHANNEL_DEFINITIONS,
  CHANNEL_IDS,
  CHANNEL_OPTION_FIELDS,
  HANDLE_KINDS,
  publicChannelMetadata,
} from "@/lib/channels/definitions";
import { buildMime } from "@/lib/channels/email/mime";
import { type DeliveryOutcome, foldOutcome, OUTCOME_KINDS, type OutcomeKind } from "@/lib/channels/port";
import { handleInput } from "@/lib/contacts/contracts";
import { landInbound } from "@/lib/messages/receive";
import { sendMessageBody } from "@/lib/messages/contracts";
import { env } from "@/lib/env";
import { twilioAuthToken } from "@/lib/providers/telephony/credentials";
import { twilioSignature } from "@/lib/providers/telephony/signature";
import { type AppServer, startAppServer } from "./app-server";
import { startTelegramFake, type TelegramFake } from "./fakes/telegram";
import { addConnection } from "@/lib/inboxes/connections";
import { type SlackFake, startSlackFake } from "./fakes/slack";
import { call, newInbox, newOrg, type TestOrg } from "./harness";
import { installSlack, newSlackApp, useSlackFake } from "./slack-install";

/**
 * The channel conformance suite: every registered adapter (lib/channels/index.ts) is held to the
 * port's contract, the way the security suite holds every operation to its scope. A new channel
 * runs through all of it by being registered; the few things only a channel knows (how to make
 * one of its inbound messages) are in `INBOUND`, and a channel that receives without an entry
 * there fails the suite.
 */

const outcome = (kind: OutcomeKind, at = new Date()): DeliveryOutcome => ({
  kind,
  recipient: "r@example.com",
  at,
  providerType: kind,
  detail: {},
});

async function send(org: TestOrg, body: Record<string, unknown>) {
  return call("POST", "/v1/messages", { key: org.secret, body });
}

/** Per receiving channel: the raw wire form of an inbound message to `address` (answering `parentKey`) and its origin. */
const INBOUND: Record<
  string,
  (to: string, from: string, parentKey: string | null) => Promise<{ raw: Buffer; origin: Record<string, unknown> }>
> = {
  email: async (to, from, parentKey) => ({
    raw: await buildMime({
      from: { address: from },
      to: [to],
      cc: [],
      subject: parentKey ? "Re: Conformance" : "Conformance",
      text: "hello",
      messageId: `<${crypto.randomUUID()}@outside.example>`,
      inReplyTo: parentKey,
      references: parentKey ? [parentKey] : [],
    }),
    origin: { mailFrom: from, rcptTo: [to], remoteAddress: "127.0.0.1", helo: "outside.example" },
  }),
  // An app_mention to the installation connected to the inbox at `to` (connected here, as the OAuth callback would).
  slack: async (to, from, parentKey) => {
    const db = await getDb();
    const [inbox] = await db.select().from(inboxes).where(eq(inboxes.address, to));
    const connection = `ACONFORM:T${(inbox?.id ?? "nobody").replace(/-/g, "").slice(-10).toUpperCase()}`;
    if (inbox)
      await addConnection(db, inbox, "slack", connection).catch(() => {
        // already connected by an earlier fixture call
      });
    const ts = `${Math.floor(Date.now() / 1000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`;
    const threadTs = parentKey ? (parentKey.split("/")[2] ?? null) : null;
    const event = { type: "app_mention", user: from, text: "hello", ts, channel: "C0CONFORM1", thread_ts: threadTs };
    return {
      raw: Buffer.from(JSON.stringify(event)),
      origin: { connectionAddress: connection, teamId: "TCONFORM", ambient: false },
    };
  },
};

/**
 * Per channel whose messages leave the service through a provider: connects the provider to the
 * sending inbox (against its loopback fake) and names a recipient on it. Channels without an entry
 * send to another inbox of the organization (email, a2a), whose copy the suite also checks.
 */
const PEER: Record<string, (org: TestOrg, inboxId: string) => Promise<{ to: string }>> = {
  telegram: async (org, inboxId) => {
    await connectBot(org, inboxId);
    return { to: String(500_000_000 + Math.floor(Math.random() * 1_000_000)) };
  },
  slack: async (org, inboxId) => {
    await installSlack(org, slackFake, await newSlackApp(org, slackFake), inboxId);
    return { to: "C0CONFORM1" };
  },
  // A number of the simulated carrier bound to the inbox; its callbacks reach the app server.
  sms: async (org, inboxId) => {
    await bindNumber(org, inboxId);
    return { to: randomNumber() };
  },
};

/** A random fictional US number (the simulated carrier's 555-01xx range). */
const randomNumber = () => `+1312555${String(100 + Math.floor(Math.random() * 100)).padStart(4, "0")}`;

/** Provisions a free number of the simulated carrier bound to `inboxId`; returns it. */
async function bindNumber(org: TestOrg, inboxId: string): Promise<string> {
  const search = await call("GET", "/v1/phone/numbers/available?country=US&type=local&limit=100", { key: org.secret });
  const data = search.body.data as { phoneNumber: string }[];
  const phoneNumber = data[Math.floor(Math.random() * data.length)]?.phoneNumber;
  const res = await call("POST", "/v1/phone/numbers", { key: org.secret, body: { phoneNumber, inboxId } });
  if (res.status !== 201) throw new Error(`provision: ${res.status} ${JSON.stringify(res.body)}`);
  numbers.push({ org, id: res.body.id });
  return res.body.phoneNumber;
}
const numbers: { org: TestOrg; id: string }[] = [];

/**
 * Per channel whose inbound arrives as provider callbacks (`POST /v1/providers/{provider}/events`)
 * rather than through `receive`: connects `inboxId` and posts one inbound text from `sender` (the
 * channel's address of a person) the way the provider does; returns the HTTP status it got.
 */
const PROVIDER_INBOUND: Record<
  string,
  (org: TestOrg, inboxId: string) => Promise<{ sender: string; post: (text: string) => Promise<number> }>
> = {
  telegram: async (org, inboxId) => {
    const token = await connectBot(org, inboxId);
    const chat = 600_000_000 + Math.floor(Math.random() * 1_000_000);
    let id = 1;
    return {
      sender: String(chat),
      post: (text) =>
        telegramFake.update(token, {
          message: {
            message_id: id++,
            date: Math.floor(Date.now() / 1000),
            chat: { id: chat, type: "private" },
            from: { id: chat, is_bot: false, first_name: "Someone" },
            text,
          },
        }),
    };
  },
  // Inbound SMS as Twilio (and the simulated carrier) posts it: form-encoded, X-Twilio-Signature.
  sms: async (org, inboxId) => {
    const number = await bindNumber(org, inboxId);
    const sender = randomNumber();
    const token = await twilioAuthToken(await getDb());
    const url = `${app.url}/v1/providers/twilio/events`;
    return {
      sender,
      post: async (text) => {
        const sid = `SM${crypto.randomUUID().replace(/-/g, "")}`;
        const params = {
          AccountSid: "AC0",
          MessageSid: sid,
          SmsStatus: "received",
          From: sender,
          To: number,
          Body: text,
        };
        const res = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            "X-Twilio-Signature": twilioSignature(token, url, params),
          },
          body: new URLSearchParams(params).toString(),
        });
        await res.arrayBuffer();
        return res.status;
      },
    };
  },
};

let telegramFake: TelegramFake;
let app: AppServer;
const savedEnv = { root: env.TELEGRAM_API_ROOT, base: env.PUBLIC_BASE_URL, simStep: env.PHONE_SIM_STEP_MS };

async function connectBot(org: TestOrg, inboxId: string): Promise<string> {
  // A fresh bot id per token (a persistent database keeps earlier runs' bots connected).
  const token = `${1_000_000_000 + Math.floor(Math.random() * 8_999_999_999)}:AAC${crypto.randomUUID().replace(/-/g, "")}`;
  telegramFake.addBot(token);
  const res = await call("POST", `/v1/inboxes/${inboxId}/telegram`, { key: org.secret, body: { botToken: token } });
  if (res.status !== 200) throw new Error(`connect: ${res.status} ${JSON.stringify(res.body)}`);
  return token;
}

// The first request loads every route module: once, before the per-channel tests time their own.
/** Per channel whose handles are no email addresses and that receives through `receive`: a fresh sender handle. */
const SENDER: Record<string, () => string> = {
  slack: () => `U${crypto.randomUUID().replace(/-/g, "").slice(0, 10).toUpperCase()}`,
};

let slackFake: SlackFake;
let restoreSlack: () => void;

beforeAll(async () => {
  slackFake = await startSlackFake();
  restoreSlack = useSlackFake(slackFake);
  telegramFake = await startTelegramFake();
  app = await startAppServer();
  env.TELEGRAM_API_ROOT = telegramFake.root;
  env.PUBLIC_BASE_URL = app.url;
  env.PHONE_SIM_STEP_MS = 50;
  await newInbox(await newOrg(), "warm");
}, 120_000);

afterAll(async () => {
  // Numbers are unique across the deployment: give them back (a persistent database keeps them).
  for (const n of numbers) await call("POST", `/v1/phone/numbers/${n.id}/release`, { key: n.org.secret });
  env.PHONE_SIM_STEP_MS = savedEnv.simStep;
  env.TELEGRAM_API_ROOT = savedEnv.root;
  env.PUBLIC_BASE_URL = savedEnv.base;
  await app?.close();
  await telegramFake?.close();
  restoreSlack?.();
  await slackFake?.close();
});

/** A sending inbox of `org` and a recipient for channel `id` (another inbox, or the provider's address). */
async function peerOf(org: TestOrg, id: string, label: string) {
  const from = await newInbox(org, label);
  const fixture = PEER[id];
  if (fixture) return { from, to: (await fixture(org, from.id)).to, copyInbox: null };
  const to = await newInbox(org, `${label}-to`);
  return { from, to: to.address, copyInbox: to };
}

describe("the registry is the one list of channels", () => {
  test("adapters, definitions and lib/channels/<id>/ folders name the same channels, in one order", () => {
    const folders = readdirSync(path.join(import.meta.dirname, "../lib/channels"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    expect(CHANNELS.map((c) => c.id)).toEqual(CHANNEL_IDS);
    expect(CHANNEL_DEFINITIONS.map((d) => d.id)).toEqual(CHANNEL_IDS);
    expect([...CHANNEL_IDS].sort()).toEqual(folders);
    // Contact handle kinds start with the channels' own, and the contacts API takes exactly those kinds.
    expect(HANDLE_KINDS.slice(0, CHANNEL_IDS.length)).toEqual(CHANNEL_IDS);
    expect(handleInput.shape.channel.options).toEqual(HANDLE_KINDS);
    // The send contract's `channel` enum and its option fields are the registry's.
    expect(sendMessageBody.shape.channel.unwrap().options).toEqual(CHANNEL_IDS);
    for (const field of Object.keys(CHANNEL_OPTION_FIELDS)) expect(sendMessageBody.shape).toHaveProperty(field);
    // Every channel option of the send is some channel's.
    for (const field of Object.keys(CHANNEL_OPTION_FIELDS))
      expect(CHANNEL_DEFINITIONS.some((d) => field in d.options.shape)).toBe(true);
  });
});

describe.each(CHANNELS.map((c) => [c.id, c] as const))("channel %s", (id, adapter) => {
  test("address schema: its handle example is taken in normal form, idempotently; garbage is refused", () => {
    const example = adapter.handle.example;
    const taken = adapter.address(` ${example.toUpperCase()} `);
    expect(taken.ok).toBe(true);
    if (!taken.ok) return;
    expect(adapter.address(taken.address)).toEqual(taken);
    expect(adapter.handle.normalize(example)).toBe(taken.address);
    const refused = adapter.address("not an address at all");
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.message).toContain("not an address at all");
    // Its handle kinds are contact handle kinds, its own first or among them.
    for (const kind of adapter.handleKinds) expect(HANDLE_KINDS).toContain(kind);
    expect(adapter.handleKinds).toContain(id);
  });

  test("options of another channel are refused naming the field; its own are taken", () => {
    for (const field of Object.keys(adapter.options.shape))
      expect(() => refuseForeignOptions(adapter, { [field]: 1 })).not.toThrow();
    for (const field of Object.keys(CHANNEL_OPTION_FIELDS)) {
      if (field in adapter.options.shape) continue;
      expect(() => refuseForeignOptions(adapter, { [field]: 1 })).toThrow(expect.objectContaining({ param: field }));
    }
    // The same adapter without its options refuses every one of them, naming it.
    const bare = { ...adapter, options: z.object({}) };
    for (const field of Object.keys(adapter.options.shape))
      expect(() => refuseForeignOptions(bare, { [field]: 1 })).toThrow(expect.objectContaining({ param: field }));
  });

  test("a send naming an option no channel declares is a 400 naming it", async () => {
    const org = await newOrg();
    const { from, to } = await peerOf(org, id, "opt");
    const res = await send(org, { inboxId: from.id, to, channel: id, text: "x", notAChannelOption: [[]] });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe("notAChannelOption");
  });

  test("outcomes: every kind folds, metadata after outcomes stays within the public schema", () => {
    const current = adapter.outboundMetadata({ receiptId: "rcpt_x", provenance: null, provenanceVerified: false });
    // An inbox of this service that does not receive: a final outcome in the neutral vocabulary.
    const unavailable = adapter.unavailable("paused@example.com", "paused");
    expect(OUTCOME_KINDS).toContain(unavailable.kind);
    expect(foldOutcome("delivered", [unavailable])).toBe(unavailable.kind);
    expect(publicChannelMetadata(id, adapter.outcomeMetadata(current, { outcomes: [unavailable] }))).not.toBeNull();
    for (const kind of OUTCOME_KINDS) {
      const after = adapter.outcomeMetadata(current, {
        receipt: { provider: "p", providerMessageId: "m", outcomes: [] },
        outcomes: [outcome(kind)],
      });
      const shown = publicChannelMetadata(id, after);
      expect(shown).not.toBeNull();
      expect(Object.keys(shown ?? {}).every((k) => k in adapter.metadata.shape)).toBe(true);
    }
  });

  test("public metadata only: a sent message and its internal copy show only the channel's public keys", async () => {
    const org = await newOrg();
    const { from, to, copyInbox } = await peerOf(org, id, "pub");
    const res = await send(org, { inboxId: from.id, to, channel: id, subject: "Public", text: "x" });
    expect(res.status).toBe(200);
    expect(res.body.channel).toBe(id);
    if (copyInbox) {
      const list = (await call("GET", `/v1/messages?channel=${id}&inboxId=${copyInbox.id}`, { key: org.secret })).body
        .messages;
      const copy = list.find((m: { subject: string }) => m.subject === "Public");
      expect(copy).toBeTruthy();
      const shown = Object.keys(copy.channelMetadata ?? {});
      expect(shown.every((k) => k in adapter.metadata.shape)).toBe(true);
      expect(shown).not.toContain("senderInboxId");
      expect(shown).not.toContain("internal");
    }
    // Delivered: at once, or by the provider's callback soon after (sms: the simulated carrier's clock).
    let sent = (await call("GET", `/v1/messages/${res.body.id}`, { key: org.secret })).body.message;
    for (let i = 0; i < 100 && sent.deliveryStatus !== "delivered"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      sent = (await call("GET", `/v1/messages/${res.body.id}`, { key: org.secret })).body.message;
    }
    expect(Object.keys(sent.channelMetadata ?? {}).every((k) => k in adapter.metadata.shape)).toBe(true);
    expect(sent.deliveryStatus).toBe("delivered");
  });

  test("inbound lands in the connected inbox, fires message.received, links the contact and threads", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org, "in");
    const db = await getDb();
    const viaProvider = PROVIDER_INBOUND[id];
    if (viaProvider) {
      // Inbound arrives as the provider's callbacks: posted the provider's way, verified, landed.
      const { sender, post } = await viaProvider(org, inbox.id);
      const contact = await call("POST", "/v1/contacts", {
        key: org.secret,
        body: { displayName: "Someone", handles: [{ channel: id, value: sender }] },
      });
      expect(contact.status).toBe(200);
      expect(await post("one")).toBe(200);
      expect(await post("two")).toBe(200);
      const landed = await db
        .select()
        .from(messages)
        .where(and(eq(messages.inboxId, inbox.id), eq(messages.direction, "inbound")));
      expect(landed).toHaveLength(2);
      for (const m of landed)
        expect(m).toMatchObject({ channel: id, fromAddress: sender, contactId: contact.body.contact.id });
      expect(new Set(landed.map((m) => m.threadId)).size).toBe(1);
      const received = await db
        .select({ type: ledgerEvents.type })
        .from(ledgerEvents)
        .where(and(eq(ledgerEvents.orgId, org.orgId), eq(ledgerEvents.partitionKey, `inbox:${inbox.id}`)));
      expect(received.filter((e) => e.type === "message.received")).toHaveLength(2);
      return;
    }
    if (!adapter.receive) {
      // A channel with no ingress delivers inside the service: the recipient's copy is its inbound.
      const peer = await newInbox(org, "peer");
      const first = await send(org, { inboxId: peer.id, to: inbox.address, channel: id, subject: "In", text: "1" });
      const [copy] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.inboxId, inbox.id), eq(messages.direction, "inbound")));
      expect(copy?.channel).toBe(id);
      const second = await send(org, {
        inboxId: peer.id,
        to: inbox.address,
        channel: id,
        replyToMessageId: first.body.id,
        text: "2",
      });
      expect(second.status).toBe(200);
      const copies = await db
        .select()
        .from(messages)
        .where(and(eq(messages.inboxId, inbox.id), eq(messages.direction, "inbound")));
      expect(copies).toHaveLength(2);
      expect(new Set(copies.map((m) => m.threadId)).size).toBe(1);
      return;
    }
    const fixture = INBOUND[id];
    expect(fixture, `channel ${id} receives: give it an inbound fixture in tests/channels.test.ts`).toBeTruthy();
    if (!fixture) return;
    const sender = SENDER[id]?.() ?? `someone-${crypto.randomUUID().slice(0, 8)}@outside.example`;
    const contact = await call("POST", "/v1/contacts", {
      key: org.secret,
      body: { displayName: "Someone", handles: [{ channel: id, value: sender }] },
    });
    expect(contact.status).toBe(200);
    const one = await fixture(inbox.address, sender, null);
    const [first] = await landInbound(db, await adapter.receive(db, one.raw, one.origin));
    expect(first).toMatchObject({
      inboxId: inbox.id,
      channel: id,
      direction: "inbound",
      contactId: contact.body.contact.id,
    });
    const two = await fixture(inbox.address, sender, first?.messageIdHeader ?? null);
    const [second] = await landInbound(db, await adapter.receive(db, two.raw, two.origin));
    expect(second?.threadId).toBe(first?.threadId);
    const events = await db
      .select({ type: ledgerEvents.type })
      .from(ledgerEvents)
      .where(and(eq(ledgerEvents.orgId, org.orgId), eq(ledgerEvents.partitionKey, `inbox:${inbox.id}`)));
    expect(events.filter((e) => e.type === "message.received")).toHaveLength(2);
    // Delivered to an address no inbox is connected at: nothing lands.
    const stray = await fixture(`nobody-${crypto.randomUUID()}@nowhere.example`, sender, null);
    expect(await landInbound(db, await adapter.receive(db, stray.raw, stray.origin))).toEqual([]);
  });
});

describe("the auto rule and the outcome fold", () => {
  test("no channel: a2a when every recipient is an inbox here, else the last resort; a named channel's address schema validates", async () => {
    const org = await newOrg();
    const from = await newInbox(org, "auto");
    const peer = await newInbox(org, "auto-peer");
    const inside = await send(org, { inboxId: from.id, to: peer.address, text: "x" });
    // The highest-ranked channel that takes recipients all inboxes of this service (a2a), else the last resort (email).
    expect(inside.body.channel).toBe(CHANNELS_BY_DEFAULT[0]?.id);
    expect(channelAdapter(inside.body.channel).byDefault?.rank).toBeGreaterThan(0);
    const outside = await send(org, { inboxId: from.id, to: [peer.address, "x@example.com"], text: "x" });
    expect(outside.body.channel).toBe(CHANNELS_BY_DEFAULT.at(-1)?.id);
    for (const id of CHANNEL_IDS) {
      const bad = await send(org, {
        inboxId: from.id,
        to: [channelAdapter(id).handle.example, "not an address"],
        channel: id,
        text: "x",
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.param).toBe("to[1]");
    }
  });

  test("foldOutcome: complaint > bounce > failure stay; delivery and delay replace each other; accepted only first", () => {
    const fold = (...kinds: OutcomeKind[]) =>
      foldOutcome(
        null,
        kinds.map((k) => outcome(k)),
      );
    expect(fold()).toBeNull();
    expect(fold("accepted")).toBe("accepted");
    expect(fold("accepted", "delivered")).toBe("delivered");
    expect(fold("delivered", "delayed")).toBe("delayed");
    expect(fold("delayed", "delivered")).toBe("delivered");
    expect(fold("delivered", "accepted")).toBe("delivered");
    expect(fold("bounced", "delivered")).toBe("bounced");
    expect(fold("complained", "bounced")).toBe("complained");
    expect(fold("bounced", "complained")).toBe("complained");
    expect(fold("failed", "delivered")).toBe("failed");
    expect(fold("failed", "bounced")).toBe("bounced");
  });
});
