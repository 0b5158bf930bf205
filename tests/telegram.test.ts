import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { getDb } from "@/db";
import { auditLogs, inboxConnections, ledgerEvents, messages, outbox } from "@/db/schema";
import { env } from "@/lib/env";
import { drainOutbox } from "@/lib/outbox/relay";
import { type AppServer, startAppServer } from "./app-server";
import { startTelegramFake, type TelegramFake } from "./fakes/telegram";
import { call, newInbox, newOrg, type TestOrg } from "./harness";

/**
 * The telegram channel end to end against the loopback Bot API fake (tests/fakes/telegram.ts):
 * the service's webhook is reached over real HTTP (the app's routes behind a loopback listener,
 * registered as PUBLIC_BASE_URL), the way Telegram reaches it.
 */

let fake: TelegramFake;
let app: AppServer;
const saved = { root: env.TELEGRAM_API_ROOT, base: env.PUBLIC_BASE_URL };
const logs: string[] = [];

beforeAll(async () => {
  fake = await startTelegramFake();
  app = await startAppServer();
  env.TELEGRAM_API_ROOT = fake.root;
  env.PUBLIC_BASE_URL = app.url;
  // The first request loads every route module: once, before the tests time their own.
  await newInbox(await newOrg(), "warm");
  for (const stream of ["log", "error", "warn", "info"] as const) {
    const original = console[stream].bind(console);
    vi.spyOn(console, stream).mockImplementation((...args: unknown[]) => {
      logs.push(args.map(String).join(" "));
      original(...args);
    });
  }
}, 120_000);

afterAll(async () => {
  env.TELEGRAM_API_ROOT = saved.root;
  env.PUBLIC_BASE_URL = saved.base;
  vi.restoreAllMocks();
  await app?.close();
  await fake?.close();
});

// A fresh bot id per token (a persistent database keeps earlier runs' bots connected).
const newToken = () =>
  `${1_000_000_000 + Math.floor(Math.random() * 8_999_999_999)}:AAH${crypto.randomUUID().replace(/-/g, "")}`;

async function connected(org?: TestOrg) {
  const o = org ?? (await newOrg());
  const inbox = await newInbox(o, "tg");
  const token = newToken();
  const bot = fake.addBot(token);
  const res = await call("POST", `/v1/inboxes/${inbox.id}/telegram`, { key: o.secret, body: { botToken: token } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { org: o, inbox, token, bot };
}

const chatOf = () => 500_000_000 + Math.floor(Math.random() * 1_000_000);
const textUpdate = (chat: number, text: string, id: number) => ({
  message: {
    message_id: id,
    date: Math.floor(Date.now() / 1000),
    chat: { id: chat, type: "private", first_name: "Ada" },
    from: { id: chat, is_bot: false, first_name: "Ada", username: "ada_l" },
    text,
  },
});

describe("connect", () => {
  test("getMe checks the token, setWebhook registers the service with a secret; the token is never shown", async () => {
    const { org, inbox, token, bot } = await connected();
    const hook = fake.webhookOf(token);
    expect(hook?.url).toBe(`${app.url}/v1/providers/telegram/events`);
    expect(hook?.secretToken).toMatch(new RegExp(`^${bot.id}_[A-Za-z0-9_-]{20,}$`));
    expect(hook?.allowedUpdates).toEqual(["message", "callback_query", "message_reaction"]);
    const db = await getDb();
    const [conn] = await db
      .select()
      .from(inboxConnections)
      .where(eq(inboxConnections.address, String(bot.id)));
    expect(conn).toMatchObject({ inboxId: inbox.id, channel: "telegram", status: "active" });
    // Stored sealed: neither the token nor the webhook secret in the row as it is.
    expect(conn?.secretCiphertext).toMatch(/^v1\./);
    expect(conn?.secretCiphertext).not.toContain(token);
    expect(conn?.secretCiphertext).not.toContain(hook?.secretToken ?? "-");
    const got = await call("GET", `/v1/inboxes/${inbox.id}`, { key: org.secret });
    expect(JSON.stringify(got.body)).not.toContain(token);
    const audits = await db.select().from(auditLogs).where(eq(auditLogs.orgId, org.orgId));
    expect(audits.some((a) => a.action === "inbox.telegram_connected")).toBe(true);
    expect(JSON.stringify(audits)).not.toContain(token);
    expect(JSON.stringify(audits)).not.toContain(token.split(":")[1]);
  });

  test("a token Telegram refuses is 400 naming botToken; an unreachable API is 502 provider_unavailable", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org, "tg-bad");
    const refused = await call("POST", `/v1/inboxes/${inbox.id}/telegram`, {
      key: org.secret,
      body: { botToken: newToken() },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "invalid_request", param: "botToken" });
    const malformed = await call("POST", `/v1/inboxes/${inbox.id}/telegram`, {
      key: org.secret,
      body: { botToken: "nope" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.param).toBe("botToken");
    env.TELEGRAM_API_ROOT = "http://127.0.0.1:9";
    try {
      const down = await call("POST", `/v1/inboxes/${inbox.id}/telegram`, {
        key: org.secret,
        body: { botToken: newToken() },
      });
      expect(down.status).toBe(502);
      expect(down.body.error.code).toBe("provider_unavailable");
    } finally {
      env.TELEGRAM_API_ROOT = fake.root;
    }
  });

  test("another organization cannot connect, disconnect or send through an inbox it does not own (404)", async () => {
    const { inbox } = await connected();
    const other = await newOrg();
    const token = newToken();
    fake.addBot(token);
    const connect = await call("POST", `/v1/inboxes/${inbox.id}/telegram`, {
      key: other.secret,
      body: { botToken: token },
    });
    expect(connect.status).toBe(404);
    expect((await call("DELETE", `/v1/inboxes/${inbox.id}/telegram`, { key: other.secret })).status).toBe(404);
    const sent = await call("POST", "/v1/messages", {
      key: other.secret,
      body: { inboxId: inbox.id, channel: "telegram", to: "12345", text: "x" },
    });
    expect(sent.status).toBe(404);
  });

  test("disconnect: the webhook is deleted and updates for the bot are refused", async () => {
    const { org, inbox, token } = await connected();
    const secret = fake.webhookOf(token)?.secretToken;
    const url = fake.webhookOf(token)?.url ?? "";
    const res = await call("DELETE", `/v1/inboxes/${inbox.id}/telegram`, { key: org.secret });
    expect(res.status).toBe(200);
    expect(fake.webhookOf(token)).toBeNull();
    const late = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret ?? "" },
      body: JSON.stringify({ update_id: 1, ...textUpdate(chatOf(), "late", 1) }),
    });
    expect(late.status).toBe(401);
    const send = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "telegram", to: "12345", text: "x" },
    });
    expect(send.status).toBe(400);
    expect(send.body.error.param).toBe("channel");
  });

  test("disconnect: a connection reset on deleteWebhook (a stale keep-alive socket) is retried once, and the webhook is deleted", async () => {
    const { org, inbox, token } = await connected();
    fake.dropNext("deleteWebhook");
    const res = await call("DELETE", `/v1/inboxes/${inbox.id}/telegram`, { key: org.secret });
    expect(res.status).toBe(200);
    expect(fake.webhookOf(token)).toBeNull();
  });
});

describe("send", () => {
  test("a send from an inbox that never had a bot is 400 invalid_request naming channel; nothing is stored", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org, "tg-none");
    const res = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "telegram", to: "12345", text: "x" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", param: "channel" });
    expect(res.body.error.message).toMatch(/no Telegram bot/);
    const db = await getDb();
    expect(await db.select().from(messages).where(eq(messages.inboxId, inbox.id))).toHaveLength(0);
  });

  test("text and buttons go out through sendMessage; the message is sent with Telegram's ids", async () => {
    const { org, inbox, token } = await connected();
    const chat = chatOf();
    const res = await call("POST", "/v1/messages", {
      key: org.secret,
      body: {
        inboxId: inbox.id,
        channel: "telegram",
        to: String(chat),
        text: "Pick one",
        buttons: [
          [
            { text: "Yes", callback: "yes" },
            { text: "No", callback: "no", alert: true },
          ],
          [{ text: "Docs", url: "https://example.com/docs" }],
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "sent", channel: "telegram" });
    const call0 = fake.calls.filter((c) => c.token === token && c.method === "sendMessage").at(-1);
    expect(call0?.params).toMatchObject({
      chat_id: String(chat),
      text: "Pick one",
      reply_markup: {
        inline_keyboard: [
          [
            { text: "Yes", callback_data: ".yes" },
            { text: "No", callback_data: "!no" },
          ],
          [{ text: "Docs", url: "https://example.com/docs" }],
        ],
      },
    });
    const got = (await call("GET", `/v1/messages/${res.body.id}`, { key: org.secret })).body.message;
    expect(got).toMatchObject({ channel: "telegram", deliveryStatus: "delivered", to: [String(chat)] });
    expect(got.channelMetadata).toMatchObject({ provider: "telegram", chatId: String(chat) });
    // The buttons as sent stay with the message (the console shows them).
    expect(got.channelMetadata.buttons).toEqual([
      [
        { text: "Yes", callback: "yes" },
        { text: "No", callback: "no", alert: true },
      ],
      [{ text: "Docs", url: "https://example.com/docs" }],
    ]);
    expect(res.body.providerMessageId).toMatch(new RegExp(`^${chat}:\\d+$`));
    expect(got.channelMetadata.providerMessageId).toBe(res.body.providerMessageId);
  });

  test("buttons on another channel, a bad button and a chat id that is no address are 400 naming the field", async () => {
    const { org, inbox } = await connected();
    const email = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, to: "x@example.com", text: "x", buttons: [[{ text: "a", callback: "b" }]] },
    });
    expect(email.status).toBe(400);
    expect(email.body.error.param).toBe("buttons");
    const both = await call("POST", "/v1/messages", {
      key: org.secret,
      body: {
        inboxId: inbox.id,
        channel: "telegram",
        to: "1",
        text: "x",
        buttons: [[{ text: "a", callback: "b", url: "https://example.com" }]],
      },
    });
    expect(both.status).toBe(400);
    expect(both.body.error.param).toMatch(/^buttons/);
    const notChat = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "telegram", to: "someone@example.com", text: "x" },
    });
    expect(notChat.status).toBe(400);
    expect(notChat.body.error.param).toBe("to");
  });

  test("a 429 with retry_after keeps the message queued and the outbox retries it after that time", async () => {
    const { org, inbox, token } = await connected();
    const chat = chatOf();
    fake.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 60",
      retry_after: 60,
    });
    const res = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "telegram", to: String(chat), text: "later" },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("queued");
    const db = await getDb();
    const [entry] = await db.select().from(outbox).where(eq(outbox.subjectId, res.body.id));
    expect(entry?.status).toBe("pending");
    expect(entry?.attempts).toBe(0);
    // The lease is pushed out by retry_after (60 s; a loaded machine cannot pass it during the test).
    expect(entry?.leaseUntil?.getTime()).toBeGreaterThan(Date.now() + 30_000);
    // Not before retry_after: the entry is not due yet.
    await drainOutbox(db);
    expect((await db.select().from(messages).where(eq(messages.id, res.body.id)))[0]?.status).toBe("queued");
    // Once retry_after has passed (the lease moved into the past), the relay retries it.
    await db
      .update(outbox)
      .set({ leaseUntil: new Date(Date.now() - 1000) })
      .where(eq(outbox.subjectId, res.body.id));
    await drainOutbox(db);
    const [row] = await db.select().from(messages).where(eq(messages.id, res.body.id));
    expect(row?.status).toBe("sent");
    const sends = fake.calls.filter((c) => c.token === token && c.method === "sendMessage");
    expect(sends.map((c) => c.params.text)).toEqual(["later", "later"]);
  });
});

describe("voice notes", () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-tts-"));
  /** A stand-in espeak-ng: records its arguments and stdin, writes a WAV to stdout as espeak-ng does on a pipe. */
  const espeak = join(dir, "espeak-ng");
  writeFileSync(
    espeak,
    `#!/usr/bin/env node
const fs = require("node:fs");
const text = fs.readFileSync(0, "utf8");
fs.writeFileSync(${JSON.stringify(join(dir, "espeak.json"))}, JSON.stringify({ args: process.argv.slice(2), text }));
const pcm = Buffer.alloc(22050 * 2); // one second of 16-bit mono at 22050 Hz
const h = Buffer.alloc(44);
h.write("RIFF", 0); h.writeUInt32LE(0x7fffffff, 4); h.write("WAVE", 8); h.write("fmt ", 12);
h.writeUInt32LE(16, 16); h.writeUInt16LE(1, 20); h.writeUInt16LE(1, 22); h.writeUInt32LE(22050, 24);
h.writeUInt32LE(44100, 28); h.writeUInt16LE(2, 32); h.writeUInt16LE(16, 34); h.write("data", 36); h.writeUInt32LE(0x7fffffff, 40);
process.stdout.write(Buffer.concat([h, pcm]));
`,
  );
  chmodSync(espeak, 0o755);
  const opusenc = join(dir, "opusenc");
  writeFileSync(opusenc, "#!/bin/sh\ncat > /dev/null\nprintf 'OggS-opusenc-output'\n");
  chmodSync(opusenc, 0o755);
  const saved = { ...env };
  const absent = join(dir, "not-installed");
  afterAll(() => {
    Object.assign(env, {
      TTS_PROVIDER: saved.TTS_PROVIDER,
      TTS_ESPEAK_PATH: saved.TTS_ESPEAK_PATH,
      TTS_OPUSENC_PATH: saved.TTS_OPUSENC_PATH,
      TTS_FFMPEG_PATH: saved.TTS_FFMPEG_PATH,
    });
    rmSync(dir, { recursive: true, force: true });
  });

  async function sendVoice(voice: Record<string, unknown>, text?: string) {
    const { org, inbox, token } = await connected();
    const chat = chatOf();
    const res = await call("POST", "/v1/messages", {
      key: org.secret,
      body: {
        inboxId: inbox.id,
        channel: "telegram",
        to: String(chat),
        telegram: { voice },
        ...(text ? { text } : {}),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const upload = fake.calls.filter((c) => c.token === token && c.method === "sendVoice").at(-1);
    return { res, upload, chat, org };
  }

  test("without espeak-ng: a one-second silent Ogg Opus note goes out through sendVoice (multipart), said in channelMetadata", async () => {
    Object.assign(env, { TTS_PROVIDER: "espeak", TTS_ESPEAK_PATH: absent });
    const { res, upload, chat } = await sendVoice({ text: "Your order shipped." }, "Order update");
    expect(res.body.status).toBe("sent");
    expect(upload?.params).toMatchObject({ chat_id: String(chat), caption: "Order update" });
    expect(upload?.file?.bytes.subarray(0, 4).toString("latin1")).toBe("OggS");
    expect(upload?.file?.bytes.includes(Buffer.from("OpusHead"))).toBe(true);
    expect(upload?.file?.name).toBe("voice.ogg");
    expect(res.body.channelMetadata.voice).toEqual({
      voiceId: "adrian",
      text: "Your order shipped.",
      engine: "silent",
      format: "ogg_opus",
      durationSeconds: 1,
      note: expect.stringContaining("espeak-ng is not installed"),
    });
    expect(res.body.providerMessageId).toMatch(new RegExp(`^${chat}:\\d+$`));
  });

  test("with espeak-ng: the text is spoken in the voice's espeak voice; Ogg Opus through opusenc, else WAV said in channelMetadata", async () => {
    Object.assign(env, {
      TTS_PROVIDER: "espeak",
      TTS_ESPEAK_PATH: espeak,
      TTS_OPUSENC_PATH: absent,
      TTS_FFMPEG_PATH: absent,
    });
    const wav = await sendVoice({ voiceId: "amelia", text: "Hello from the service" });
    const ran = JSON.parse(readFileSync(join(dir, "espeak.json"), "utf8")) as { args: string[]; text: string };
    expect(ran.args).toEqual(["-v", "en-gb+f3", "--stdout", "--stdin"]);
    expect(ran.text).toBe("Hello from the service");
    const bytes = wav.upload?.file?.bytes ?? Buffer.alloc(0);
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("RIFF");
    // The pipe's unknown sizes are set: RIFF size and data size match the file.
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
    expect(bytes.readUInt32LE(40)).toBe(bytes.length - 44);
    expect(wav.upload?.params.duration).toBe("1");
    expect(wav.res.body.channelMetadata.voice).toMatchObject({
      voiceId: "amelia",
      engine: "espeak-ng",
      format: "wav",
      durationSeconds: 1,
      note: expect.stringContaining("No Opus encoder"),
    });
    env.TTS_OPUSENC_PATH = opusenc;
    const ogg = await sendVoice({ text: "Encoded" });
    expect(ogg.upload?.file?.bytes.toString("latin1")).toBe("OggS-opusenc-output");
    expect(ogg.res.body.channelMetadata.voice).toMatchObject({
      voiceId: "adrian",
      engine: "espeak-ng",
      format: "ogg_opus",
      note: null,
    });
    const voices = await call("GET", "/v1/telegram/voices", { key: ogg.org.secret });
    expect(voices.body).toMatchObject({ engine: "espeak-ng", format: "ogg_opus" });
  });

  test("an unknown voice, a voice on another channel and a caption past 1024 characters are 400 naming the field", async () => {
    const { org, inbox } = await connected();
    const unknown = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "telegram", to: "12345", telegram: { voice: { voiceId: "hal", text: "x" } } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe("telegram.voice.voiceId");
    const email = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, to: "x@example.com", text: "x", telegram: { voice: { text: "x" } } },
    });
    expect(email.status).toBe(400);
    expect(email.body.error.param).toBe("telegram");
    const long = await call("POST", "/v1/messages", {
      key: org.secret,
      body: {
        inboxId: inbox.id,
        channel: "telegram",
        to: "12345",
        text: "x".repeat(1025),
        telegram: { voice: { text: "x" } },
      },
    });
    expect(long.status).toBe(400);
    expect(long.body.error.param).toBe("text");
  });

  test("GET /v1/telegram/voices: the catalog with adrian the default, and what this host produces", async () => {
    Object.assign(env, { TTS_ESPEAK_PATH: absent });
    const org = await newOrg();
    const res = await call("GET", "/v1/telegram/voices", { key: org.secret });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ object: "list", defaultVoiceId: "adrian", engine: "silent", format: "ogg_opus" });
    const adrian = res.body.data.find((v: { slug: string }) => v.slug === "adrian");
    expect(adrian).toMatchObject({ object: "telegram_voice", default: true, language: "en" });
    expect(res.body.data.filter((v: { default: boolean }) => v.default)).toHaveLength(1);
    expect(JSON.stringify(res.body)).not.toContain('espeak":');
    expect((await call("GET", "/v1/telegram/voices")).status).toBe(401);
  });
});

describe("message actions", () => {
  test("edit, react and unreact a sent message through the Bot API; an email message or a bad emoji is 400", async () => {
    const { org, inbox, token } = await connected();
    const chat = chatOf();
    const sent = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "telegram", to: String(chat), text: "v1" },
    });
    const tgId = Number(String(sent.body.providerMessageId).split(":")[1]);
    const edit = await call("POST", `/v1/messages/${sent.body.id}/edit`, {
      key: org.secret,
      body: { text: "v2", buttons: [[{ text: "ok", callback: "ok" }]] },
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    expect(edit.body).toMatchObject({ id: sent.body.id, channel: "telegram", edited: true });
    const edited = fake.calls.filter((c) => c.token === token && c.method === "editMessageText").at(-1);
    expect(edited?.params).toMatchObject({ chat_id: String(chat), message_id: tgId, text: "v2" });
    const got = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message;
    expect(got.textBody).toBe("v2");
    expect(got.channelMetadata.editedAt).toBe(edit.body.editedAt);
    expect(got.channelMetadata.buttons).toEqual([[{ text: "ok", callback: "ok" }]]);
    const react = await call("POST", `/v1/messages/${sent.body.id}/react`, {
      key: org.secret,
      body: { emoji: "👍", big: true },
    });
    expect(react.status).toBe(200);
    expect(react.body).toMatchObject({ reacted: true, emoji: "👍", big: true });
    const reacted = fake.calls.filter((c) => c.token === token && c.method === "setMessageReaction").at(-1);
    expect(reacted?.params).toMatchObject({
      message_id: tgId,
      reaction: [{ type: "emoji", emoji: "👍" }],
      is_big: true,
    });
    const unreact = await call("POST", `/v1/messages/${sent.body.id}/unreact`, { key: org.secret, body: {} });
    expect(unreact.status).toBe(200);
    expect(unreact.body).toMatchObject({ reacted: false });
    expect(
      fake.calls.filter((c) => c.token === token && c.method === "setMessageReaction").at(-1)?.params,
    ).toMatchObject({ reaction: [] });
    const bad = await call("POST", `/v1/messages/${sent.body.id}/react`, { key: org.secret, body: { emoji: "🐙" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("emoji");
    const email = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, to: "x@example.com", text: "mail" },
    });
    const notTg = await call("POST", `/v1/messages/${email.body.id}/edit`, { key: org.secret, body: { text: "x" } });
    expect(notTg.status).toBe(400);
    const other = await newOrg();
    const foreign = await call("POST", `/v1/messages/${sent.body.id}/react`, {
      key: other.secret,
      body: { emoji: "👍" },
    });
    expect(foreign.status).toBe(404);
  });
});

describe("inbound", () => {
  test("text messages land in the inbox, threaded per chat, with message.received", async () => {
    const { org, inbox, token } = await connected();
    const chat = chatOf();
    expect(await fake.update(token, textUpdate(chat, "hello bot", 10))).toBe(200);
    expect(await fake.update(token, textUpdate(chat, "are you there?", 11))).toBe(200);
    const other = chatOf();
    expect(await fake.update(token, textUpdate(other, "someone else", 12))).toBe(200);
    const db = await getDb();
    const rows = await db
      .select()
      .from(messages)
      .where(and(eq(messages.inboxId, inbox.id), eq(messages.direction, "inbound")))
      .orderBy(messages.createdAt);
    expect(rows.map((r) => [r.channel, r.fromAddress, r.textBody])).toEqual([
      ["telegram", String(chat), "hello bot"],
      ["telegram", String(chat), "are you there?"],
      ["telegram", String(other), "someone else"],
    ]);
    expect(rows[0]?.threadId).toBe(rows[1]?.threadId);
    expect(rows[2]?.threadId).not.toBe(rows[0]?.threadId);
    const listed = (await call("GET", `/v1/messages?inboxId=${inbox.id}&channel=telegram`, { key: org.secret })).body;
    expect(listed.messages[0].channelMetadata).toMatchObject({ chatId: String(other), fromUsername: "ada_l" });
    const events = await db
      .select({ type: ledgerEvents.type })
      .from(ledgerEvents)
      .where(eq(ledgerEvents.partitionKey, `inbox:${inbox.id}`));
    expect(events.filter((e) => e.type === "message.received")).toHaveLength(3);
  });

  test("a redelivered update (same bot, same update_id) is acknowledged and landed once", async () => {
    const { inbox, token } = await connected();
    const chat = chatOf();
    const update = { update_id: 900_001, ...textUpdate(chat, "only once", 30) };
    expect(await fake.update(token, update)).toBe(200);
    expect(await fake.update(token, update)).toBe(200);
    // Another update id with the same content is another update.
    expect(await fake.update(token, { ...update, update_id: 900_002 })).toBe(200);
    const db = await getDb();
    const rows = await db
      .select()
      .from(messages)
      .where(and(eq(messages.inboxId, inbox.id), eq(messages.direction, "inbound")));
    expect(rows.map((r) => r.textBody)).toEqual(["only once", "only once"]);
    const events = await db
      .select({ type: ledgerEvents.type })
      .from(ledgerEvents)
      .where(eq(ledgerEvents.partitionKey, `inbox:${inbox.id}`));
    expect(events.filter((e) => e.type === "message.received")).toHaveLength(2);
    // A redelivered tap is neither answered nor recorded twice.
    const tap = {
      update_id: 900_003,
      callback_query: { id: "cbq-dup", from: { id: chat, is_bot: false, first_name: "Ada" }, data: ".x" },
    };
    expect(await fake.update(token, tap)).toBe(200);
    expect(await fake.update(token, tap)).toBe(200);
    const answers = fake.calls.filter((c) => c.token === token && c.method === "answerCallbackQuery");
    expect(answers).toHaveLength(1);
    const taps = await db
      .select({ type: ledgerEvents.type })
      .from(ledgerEvents)
      .where(and(eq(ledgerEvents.partitionKey, `inbox:${inbox.id}`), eq(ledgerEvents.type, "button_tap")));
    expect(taps).toHaveLength(1);
  });

  test("reactions on a message of the inbox are kept in its channelMetadata.reactions (each reactor's current set)", async () => {
    const { org, inbox, token } = await connected();
    const chat = chatOf();
    const sent = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "telegram", to: String(chat), text: "react to me" },
    });
    expect(sent.status).toBe(200);
    const tgId = Number(String(sent.body.providerMessageId).split(":")[1]);
    const reaction = (user: number, emojis: string[], old: string[] = []) => ({
      message_reaction: {
        chat: { id: chat, type: "private" },
        message_id: tgId,
        user: { id: user, is_bot: false, first_name: "Ada", username: `u${user}` },
        date: Math.floor(Date.now() / 1000),
        old_reaction: old.map((emoji) => ({ type: "emoji", emoji })),
        new_reaction: emojis.map((emoji) => ({ type: "emoji", emoji })),
      },
    });
    expect(await fake.update(token, reaction(chat, ["👍"]))).toBe(200);
    expect(await fake.update(token, reaction(chat + 1, ["🔥", "🎉"]))).toBe(200);
    expect(await fake.update(token, reaction(chat, ["❤"], ["👍"]))).toBe(200);
    const got = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message;
    expect(got.channelMetadata.reactions).toEqual([
      expect.objectContaining({ userId: String(chat + 1), emojis: ["🔥", "🎉"] }),
      expect.objectContaining({ userId: String(chat), username: `u${chat}`, emojis: ["❤"] }),
    ]);
    // Removing every reaction removes the reactor's entry; a reaction on an unknown message is acknowledged.
    expect(await fake.update(token, reaction(chat + 1, [], ["🔥", "🎉"]))).toBe(200);
    const after = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message;
    expect(after.channelMetadata.reactions).toEqual([expect.objectContaining({ userId: String(chat), emojis: ["❤"] })]);
    const stray = reaction(chat, ["👍"]);
    stray.message_reaction.message_id = 999_999;
    expect(await fake.update(token, stray)).toBe(200);
  });

  test("a missing or wrong secret token is 401 and stores nothing", async () => {
    const { inbox, token, bot } = await connected();
    const chat = chatOf();
    expect(await fake.update(token, textUpdate(chat, "no secret", 1), { secretToken: null })).toBe(401);
    expect(await fake.update(token, textUpdate(chat, "wrong", 2), { secretToken: `${bot.id}_${"x".repeat(43)}` })).toBe(
      401,
    );
    expect(await fake.update(token, textUpdate(chat, "garbage", 3), { secretToken: "garbage" })).toBe(401);
    const db = await getDb();
    const [{ n }] = (await db
      .select({ n: sql<number>`count(*)::int` })
      .from(messages)
      .where(eq(messages.inboxId, inbox.id))) as [{ n: number }];
    expect(n).toBe(0);
  });

  test("a callback tap is answered (alert as a modal) and lands as button_tap naming the message", async () => {
    const { org, inbox, token } = await connected();
    const chat = chatOf();
    const sent = await call("POST", "/v1/messages", {
      key: org.secret,
      body: {
        inboxId: inbox.id,
        channel: "telegram",
        to: String(chat),
        text: "Sure?",
        buttons: [[{ text: "Sure", callback: "confirm:42", alert: true }]],
      },
    });
    expect(sent.status).toBe(200);
    const tgMessageId = Number(String(sent.body.providerMessageId).split(":")[1]);
    const status = await fake.update(token, {
      callback_query: {
        id: "cbq-1",
        from: { id: chat, is_bot: false, first_name: "Ada", username: "ada_l" },
        message: { message_id: tgMessageId, date: 1, chat: { id: chat, type: "private" } },
        data: "!confirm:42",
      },
    });
    expect(status).toBe(200);
    const answer = fake.calls.filter((c) => c.token === token && c.method === "answerCallbackQuery").at(-1);
    expect(answer?.params).toMatchObject({ callback_query_id: "cbq-1", show_alert: true });
    const db = await getDb();
    const [tap] = await db
      .select()
      .from(ledgerEvents)
      .where(and(eq(ledgerEvents.partitionKey, `inbox:${inbox.id}`), eq(ledgerEvents.type, "button_tap")));
    expect(tap).toMatchObject({ messageId: sent.body.id, inboxId: inbox.id });
    expect(tap?.data).toMatchObject({ callback: "confirm:42", alert: true, chatId: String(chat), channel: "telegram" });
    const stream = await call("GET", `/v1/events?inboxId=${inbox.id}`, { key: org.secret });
    if (stream.status === 200) expect(JSON.stringify(stream.body)).toContain("button_tap");
  });
});

test("no bot token appears in any log line", () => {
  const all = logs.join("\n");
  expect(all).not.toMatch(/\d{10,11}:AAH[0-9a-f]{32}/);
});
