import { randomUUID } from "node:crypto";
import { and, desc, eq } from "drizzle-orm";
import { InputFile } from "grammy";
import { getDb } from "@/db";
import { auditLogs } from "@/db/schema";
import { invalidRequest } from "@/lib/core/errors";
import { ttsProvider } from "@/lib/providers/tts";
import { defineChannel, type DeliveryOutcome, failedForInbox } from "../port";
import { botApi, deliveryError } from "./api";
import { botById, botOfInbox, openBot } from "./bots";
import { telegramAddress, telegramDefinition, type TelegramButton } from "./definition";

/** What a telegram send's outbox entry carries (its `body`): the bot, the chats and the content; never the token. */
interface TelegramWire {
  botId: string;
  chats: string[];
  /** The message's text, or a voice note's caption (null: none). */
  text: string | null;
  buttons: TelegramButton[][] | null;
  /** A voice note to synthesize at delivery (`lib/providers/tts`), with `text` as its caption. */
  voice?: { voiceId: string; text: string } | null;
}

/** A callback button's `callback_data`: one byte for `alert` (`!` a modal, `.` a toast), then the caller's data. */
export const callbackDataOf = (b: { callback: string; alert?: boolean }) => `${b.alert ? "!" : "."}${b.callback}`;
export const parseCallbackData = (data: string) =>
  data.startsWith("!") || data.startsWith(".")
    ? { callback: data.slice(1), alert: data.startsWith("!") }
    : { callback: data, alert: false };

export const inlineKeyboard = (rows: TelegramButton[][]) => ({
  inline_keyboard: rows.map((row) =>
    row.map((b) => ("url" in b ? { text: b.text, url: b.url } : { text: b.text, callback_data: callbackDataOf(b) })),
  ),
});

/** A sent message's provider id: the chat and Telegram's message id in it. */
export const providerMessageIdOf = (chatId: string | number, messageId: number) => `${chatId}:${messageId}`;

/**
 * Telegram: a bot connected to the inbox (`POST /v1/inboxes/{id}/telegram`) sends to chats (a
 * chat id, or a public `@username`) through the Bot API; updates arrive at
 * `POST /v1/providers/telegram/events` (`webhook.ts`), verified by the bot's secret token.
 */
export const telegram = defineChannel({
  ...telegramDefinition,
  address(raw) {
    const address = telegramAddress(raw);
    return address ? { ok: true, address } : { ok: false, message: `"${raw}" is not a Telegram chat id or @username.` };
  },
  validate(s) {
    if (s.internal.size > 0) throw invalidRequest("Telegram sends go to Telegram chats, not to inboxes.", "to");
  },
  messageKey: () => `<${randomUUID()}@telegram>`,
  // A send starts its own thread; inbound messages join the chat's latest one (webhook.ts).
  threadOptions: () => ({ inReplyTo: null, references: [] }),
  async compose(db, d) {
    const bot = await botOfInbox(db, d.from.inboxId);
    if (!bot)
      throw invalidRequest(
        "This inbox has no Telegram bot; connect one with POST /v1/inboxes/{inboxId}/telegram.",
        "channel",
      );
    const text = d.content.text?.trim() ? d.content.text : null;
    const voice = (d.options.telegram as { voice?: { voiceId: string; text: string } } | undefined)?.voice ?? null;
    if (!text && !voice) throw invalidRequest("A Telegram message needs `text` (or `telegram.voice`).", "text");
    if (text && text.length > (voice ? 1024 : 4096))
      throw invalidRequest(
        voice
          ? "A voice note's caption (`text`) is at most 1024 characters."
          : "A Telegram message's `text` is at most 4096 characters.",
        "text",
      );
    if (d.content.media.length > 0) throw invalidRequest("Telegram sends take no attachments.", "attachments");
    const wire: TelegramWire = {
      botId: bot.address,
      chats: d.external,
      text,
      buttons: (d.options.buttons as TelegramButton[][] | undefined) ?? null,
      voice,
    };
    return Buffer.from(JSON.stringify(wire));
  },
  async deliver(w) {
    const wire = JSON.parse(w.body.toString("utf8")) as TelegramWire;
    const db = await getDb();
    const bot = await botById(db, wire.botId);
    if (!bot || bot.status !== "active") throw new Error(`telegram: bot ${wire.botId} is no longer connected`);
    const api = botApi((await openBot(db, bot)).botToken);
    const outcomes: DeliveryOutcome[] = [];
    let first: string | null = null;
    const markup = wire.buttons ? { reply_markup: inlineKeyboard(wire.buttons) } : {};
    // Synthesized here, after the commit and outside any transaction (at most once per handoff).
    const speech = wire.voice ? await ttsProvider().synthesize(wire.voice) : null;
    for (const chat of wire.chats) {
      try {
        const sent = speech
          ? await api.sendVoice(chat, new InputFile(speech.audio, speech.filename), {
              ...markup,
              ...(wire.text ? { caption: wire.text } : {}),
              duration: Math.max(1, Math.round(speech.durationSeconds)),
            })
          : await api.sendMessage(chat, wire.text ?? "", markup);
        first ??= providerMessageIdOf(sent.chat.id, sent.message_id);
        outcomes.push({
          kind: "delivered",
          recipient: chat,
          at: new Date(sent.date * 1000),
          providerType: "sent",
          detail: { telegramMessageId: String(sent.message_id), chatId: String(sent.chat.id) },
        });
      } catch (err) {
        throw deliveryError(err);
      }
    }
    return {
      provider: "telegram",
      providerMessageId: first,
      outcomes,
      ...(speech && wire.voice
        ? {
            metadata: {
              voice: {
                voiceId: speech.voiceId,
                text: wire.voice.text,
                engine: speech.engine,
                format: speech.format,
                durationSeconds: Math.round(speech.durationSeconds * 100) / 100,
                note: speech.note,
              },
            },
          }
        : {}),
    };
  },
  byDefault: null,
  outboundMetadata: ({ options }) => ({
    provider: null,
    providerMessageId: null,
    buttons: (options?.buttons as TelegramButton[][] | undefined) ?? null,
  }),
  copyMetadata: (p) => ({ internal: true, senderInboxId: p.senderInboxId }),
  outcomeMetadata(current, { receipt, outcomes }) {
    const last = outcomes.at(-1);
    const [chatId, messageId] = receipt?.providerMessageId?.split(":") ?? [];
    return {
      ...(current ?? {}),
      ...(receipt
        ? {
            ...(receipt.metadata ?? {}),
            provider: receipt.provider,
            providerMessageId: receipt.providerMessageId,
            chatId: chatId ?? null,
            telegramMessageId: messageId ? Number(messageId) : null,
          }
        : {}),
      ...(last ? { lastEventType: last.providerType, lastEventAt: last.at.toISOString() } : {}),
    };
  },
  unavailable: failedForInbox,
  providers: ["telegram"],
  // Loaded on first use: only the webhook needs it.
  providerEvent: async (provider, payload, request) =>
    (await import("./webhook")).telegramUpdate(provider, payload, request),
  // Nothing to read off a socket: updates arrive as provider callbacks.
  receive: null,
  // A bot's @username is what getMe answered when it was connected (its audit row); its id otherwise.
  async describeConnections(db, orgId, connections) {
    const rows = await db
      .select({ metadata: auditLogs.metadata })
      .from(auditLogs)
      .where(and(eq(auditLogs.orgId, orgId), eq(auditLogs.action, "inbox.telegram_connected")))
      .orderBy(desc(auditLogs.createdAt))
      .limit(500);
    const names = new Map<string, string>();
    for (const r of rows) {
      const botId = r.metadata?.botId;
      const username = r.metadata?.botUsername;
      if (typeof botId === "string" && typeof username === "string" && !names.has(botId)) names.set(botId, username);
    }
    return new Map(
      connections.map((c) => {
        const username = names.get(c.address);
        return [
          c.id,
          username
            ? { name: `@${username}`, detail: `bot id ${c.address}` }
            : { name: `bot ${c.address}`, detail: null },
        ];
      }),
    );
  },
});
