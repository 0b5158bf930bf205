import { z } from "zod";
import { DEFAULT_TTS_VOICE, TTS_VOICE_IDS } from "@/lib/providers/tts/voices";
import { defineChannelDefinition } from "../definition";

const buttonText = z.string().trim().min(1).max(64);
/** Telegram's `callback_data` is 1-64 bytes; one byte of it carries the `alert` flag. */
const callbackData = z
  .string()
  .min(1)
  .refine((v) => Buffer.byteLength(v, "utf8") <= 63, "At most 63 bytes.");

/** The spec's TelegramButton: `text` plus either `url` or `callback` (with `alert`: a modal instead of a toast). */
export const telegramButtonSchema = z.union([
  z.strictObject({ text: buttonText, url: z.url({ protocol: /^https?$|^tg$/ }) }),
  z.strictObject({ text: buttonText, callback: callbackData, alert: z.boolean().optional() }),
]);
export type TelegramButton = z.infer<typeof telegramButtonSchema>;

/**
 * The telegram channel's public `channelMetadata`: the chat, Telegram's message id and the bot that
 * carried it; an outbound send's provider and buttons. The bot token never appears anywhere.
 */
export const telegramMetadataSchema = z.object({
  provider: z.string().nullable().optional(),
  providerMessageId: z.string().nullable().optional(),
  botId: z.string().nullable().optional(),
  chatId: z.string().nullable().optional(),
  chatType: z.string().nullable().optional(),
  telegramMessageId: z.int().nullable().optional(),
  fromUserId: z.string().nullable().optional(),
  fromUsername: z.string().nullable().optional(),
  lastEventType: z.string().nullable().optional(),
  lastEventAt: z.string().nullable().optional(),
  editedAt: z.string().nullable().optional(),
  reaction: z.string().nullable().optional(),
  buttons: z
    .array(z.array(telegramButtonSchema))
    .nullable()
    .optional()
    .describe("An outbound send's button rows as sent (or as last edited)."),
  reactions: z
    .array(
      z.object({
        userId: z.string().nullable(),
        username: z.string().nullable(),
        actorChatId: z.string().nullable(),
        emojis: z.array(z.string()),
        at: z.string(),
      }),
    )
    .optional()
    .describe(
      "People's reactions on the message in the chat (Telegram's `message_reaction` updates): each reactor's current set; `reaction` is the bot's own.",
    ),
  voice: z
    .object({
      voiceId: z.string(),
      text: z.string(),
      engine: z.enum(["espeak-ng", "silent"]),
      format: z.enum(["ogg_opus", "wav"]),
      durationSeconds: z.number(),
      note: z.string().nullable(),
    })
    .nullable()
    .optional()
    .describe(
      "A voice note: the voice and text it was synthesized from, the engine (`espeak-ng`, or `silent`: no engine on the host, a short silent note was sent), the audio format (`ogg_opus`, or `wav` without an Opus encoder) and why it is not spoken Opus (`note`).",
    ),
});

/** The spec's `telegram` send option: `voice` (a text-to-speech voice note, `voiceId` a slug of `GET /v1/telegram/voices`). */
export const telegramOptionsSchema = z.strictObject({
  voice: z
    .strictObject({
      voiceId: z
        .enum(TTS_VOICE_IDS)
        .default(DEFAULT_TTS_VOICE)
        .describe("A voice's `slug` from `GET /v1/telegram/voices` (default `adrian`)."),
      text: z.string().trim().min(1).max(1000).describe("What the voice note says."),
    })
    .optional(),
});

const chatId = /^-?\d{1,20}$/;
const username = /^@[a-z][a-z0-9_]{3,31}$/;

/** A Telegram recipient: a numeric chat id, or a public `@username` (lower-cased), else null. */
export function telegramAddress(raw: string): string | null {
  const v = raw.trim();
  if (chatId.test(v)) return v;
  const lower = v.toLowerCase();
  return username.test(lower) ? lower : null;
}

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** A button's action in words: the link it opens, or the callback it sends (and whether that shows a modal). */
export function buttonAction(b: Record<string, unknown>): string {
  if (typeof b.url === "string") return `Opens ${b.url}`;
  const callback = text(b.callback) ?? "";
  return `Sends callback “${callback}”${b.alert === true ? " (answered with a modal)" : ""}`;
}

export const telegramDefinition = defineChannelDefinition({
  id: "telegram",
  label: "Telegram",
  metadata: telegramMetadataSchema,
  inSendResponse: true,
  badge: "telegram",
  options: z.object({
    buttons: z
      .array(z.array(telegramButtonSchema).min(1).max(8))
      .min(1)
      .max(20)
      .optional()
      .describe("Telegram only: rows of buttons under the message (TelegramButton: `url` or `callback`, `alert`)."),
    telegram: telegramOptionsSchema
      .optional()
      .describe(
        "Telegram only: `voice` `{voiceId, text}` sends a voice note synthesized from `text` (`text` of the message becomes its caption).",
      ),
  }),
  handleKinds: ["telegram"],
  handle: {
    normalize: telegramAddress,
    hint: "Enter a Telegram chat id (e.g. 123456789) or a public @channelname.",
    // A chat id: in a send's `to` a bare `@name` is a contact reference, so public names come through contacts.
    example: "123456789",
  },
  connection: {
    label: "Telegram bot",
    none: "No bot connected",
    connect: {
      kind: "credential",
      operationId: "connectTelegram",
      field: "botToken",
      fieldLabel: "Bot token",
      hint: "The token @BotFather gave you (123456:ABC…). It is checked with Telegram, stored encrypted and never shown again.",
      submit: "Connect bot",
      disconnectOperationId: "disconnectTelegram",
      disconnectNote:
        "The bot stops delivering this inbox's Telegram messages and its webhook is removed. Threads and messages stay.",
    },
  },
  present(m) {
    const facts: [string, string][] = [];
    const chat = text(m.chatId);
    if (chat) facts.push(["Chat", text(m.chatType) ? `${chat} (${String(m.chatType)})` : chat]);
    if (typeof m.telegramMessageId === "number") facts.push(["Telegram message", String(m.telegramMessageId)]);
    const from = text(m.fromUsername) ? `@${String(m.fromUsername)}` : text(m.fromUserId);
    if (from) facts.push(["Telegram user", from]);
    if (text(m.reaction)) facts.push(["Bot's reaction", String(m.reaction)]);
    if (text(m.editedAt)) facts.push(["Edited", String(m.editedAt)]);
    const rows = Array.isArray(m.buttons) ? (m.buttons as unknown[]) : [];
    const buttons = rows
      .filter(Array.isArray)
      .map((row) =>
        (row as unknown[])
          .filter((b): b is Record<string, unknown> => typeof b === "object" && b !== null)
          .map((b) => ({ text: text(b.text) ?? "(no text)", action: buttonAction(b) })),
      );
    return { facts, buttons };
  },
  interaction(type, data) {
    if (type !== "button_tap") return type;
    const callback = text(data.callback) ?? "";
    return `Tapped the button with callback “${callback}”${data.alert === true ? " (answered with a modal)" : ""}`;
  },
});
