import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { uuidParam } from "@/lib/core/schemas";
import { inboxSchema } from "@/lib/inboxes/contracts";
import { TELEGRAM_REACTIONS } from "./reactions";
import { telegramDefinition } from "./definition";

const params = z.strictObject({ inboxId: uuidParam });
const one = z.object({ inbox: inboxSchema });

export const connectTelegram = defineContract({
  id: "connectTelegram",
  method: "POST",
  path: "/v1/inboxes/{inboxId}/telegram",
  access: "inboxes:write",
  tag: "Inboxes",
  summary: "Connect a Telegram bot",
  description:
    "Connects the bot whose token is `botToken` (from @BotFather) to the inbox: Telegram's `getMe` checks the token (refused: 400 naming `botToken`), and the service registers its webhook (`PUBLIC_BASE_URL`, else this request's origin, + `/v1/providers/telegram/events`) with a per-bot secret token. The token is stored encrypted and never returned. Sends then go out with `channel: \"telegram\"`; messages to the bot land in the inbox. One bot per inbox: connecting another replaces it.",
  params,
  body: z.strictObject({
    botToken: z
      .string()
      .trim()
      .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, "A bot token looks like 123456789:AA…, as @BotFather gives it.")
      .describe("The bot's token (write-only: never returned)."),
  }),
  example: { botToken: "123456789:AAExampleExampleExampleExampleExam" },
  errors: ["conflict", "provider_unavailable"],
  response: one,
});

export const disconnectTelegram = defineContract({
  id: "disconnectTelegram",
  method: "DELETE",
  path: "/v1/inboxes/{inboxId}/telegram",
  access: "inboxes:write",
  tag: "Inboxes",
  summary: "Disconnect the Telegram bot",
  description: "The inbox's bot is disconnected and its webhook deleted; its stored token is erased.",
  params,
  response: one,
});

const messageParams = z.strictObject({ messageId: uuidParam });
const actionResponse = z.object({
  object: z.literal("message_action"),
  id: z.uuid(),
  channel: z.literal("telegram"),
  edited: z.boolean().optional(),
  editedAt: z.string().optional(),
  reacted: z.boolean().optional(),
  emoji: z.string().nullable().optional(),
  big: z.boolean().optional(),
});

export const editTelegramMessage = defineContract({
  id: "editTelegramMessage",
  method: "POST",
  path: "/v1/messages/{messageId}/edit",
  access: "messages:send",
  tag: "Messages",
  summary: "Edit a sent Telegram message",
  description:
    "Telegram only: the sent message's text (and, when given, its buttons) is changed in the chat (`editMessageText`) and here.",
  params: messageParams,
  body: z.strictObject({
    text: z.string().trim().min(1).max(4096),
    buttons: telegramDefinition.options.shape.buttons,
  }),
  example: { text: "Updated: shipped." },
  errors: ["provider_unavailable"],
  response: actionResponse,
});

export const reactTelegramMessage = defineContract({
  id: "reactTelegramMessage",
  method: "POST",
  path: "/v1/messages/{messageId}/react",
  access: "messages:send",
  tag: "Messages",
  summary: "React to a Telegram message",
  description: "Telegram only: the bot's reaction on the message (one Telegram-allowed emoji; `big` animates it).",
  params: messageParams,
  body: z.strictObject({ emoji: z.enum(TELEGRAM_REACTIONS), big: z.boolean().default(false) }),
  example: { emoji: "👍" },
  errors: ["provider_unavailable"],
  response: actionResponse,
});

export const unreactTelegramMessage = defineContract({
  id: "unreactTelegramMessage",
  method: "POST",
  path: "/v1/messages/{messageId}/unreact",
  access: "messages:send",
  tag: "Messages",
  summary: "Remove the bot's reaction",
  description: "Telegram only: the bot's reaction on the message is removed.",
  params: messageParams,
  body: z.strictObject({}).optional(),
  example: {},
  errors: ["provider_unavailable"],
  response: actionResponse,
});

const telegramVoiceSchema = z.object({
  object: z.literal("telegram_voice"),
  slug: z.string().describe("Passed as `telegram.voice.voiceId` when sending."),
  name: z.string(),
  language: z.string().describe("ISO 639-1 code of the language the voice speaks."),
  accent: z.string(),
  gender: z.enum(["male", "female"]),
  description: z.string(),
  default: z.boolean().describe("The voice a send that names none gets (`adrian`)."),
});

export const listTelegramVoices = defineContract({
  id: "listTelegramVoices",
  method: "GET",
  path: "/v1/telegram/voices",
  access: "messages:read",
  tag: "Messages",
  summary: "List Telegram voices",
  description:
    "The text-to-speech voice catalog for Telegram voice notes: a voice's `slug` is passed as `telegram.voice.voiceId` when sending; omitted means the default voice (`adrian`). `engine` and `format` say what this deployment produces: `espeak-ng` speech, or `silent` (no engine installed: a short silent note), as `ogg_opus` or `wav` (no Opus encoder on the host).",
  response: z.object({
    object: z.literal("list"),
    data: z.array(telegramVoiceSchema),
    defaultVoiceId: z.string(),
    engine: z.enum(["espeak-ng", "silent"]),
    format: z.enum(["ogg_opus", "wav"]),
  }),
});
