import { createHash, timingSafeEqual } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { providerCallbacks } from "@/db/schema";
import { ApiError, invalidRequest } from "@/lib/core/errors";
import { log } from "@/lib/log";
import type { InboundInteraction, InboundMessage, ProviderEventResult, ProviderRequest } from "../port";
import { latestConversationKey } from "../threading";
import { botApi, describe } from "./api";
import { botById, botIdOfSecret, openBot } from "./bots";
import { parseCallbackData, providerMessageIdOf } from ".";
import { messageReactionSchema, storeReaction } from "./inbound-reactions";

export const SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token";

const user = z.looseObject({
  id: z.number(),
  is_bot: z.boolean().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});
const chat = z.looseObject({ id: z.number(), type: z.string(), title: z.string().optional() });
const message = z.looseObject({
  message_id: z.number(),
  date: z.number(),
  chat,
  from: user.optional(),
  text: z.string().optional(),
  caption: z.string().optional(),
});
const updateSchema = z.looseObject({
  update_id: z.number(),
  message: message.optional(),
  callback_query: z
    .looseObject({ id: z.string(), from: user, message: message.optional(), data: z.string().optional() })
    .optional(),
  message_reaction: messageReactionSchema.optional(),
});

const digest = (v: string) => createHash("sha256").update(v).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));
const nameOf = (u: z.infer<typeof user> | undefined) =>
  u ? [u.first_name, u.last_name].filter(Boolean).join(" ") || u.username || null : null;

const refused = (why: string) => new ApiError("invalid_signature", why, SECRET_HEADER);

/**
 * `POST /v1/providers/telegram/events`: one update from Telegram for a connected bot. The
 * `X-Telegram-Bot-Api-Secret-Token` names the bot (its id, then the secret the service registered
 * with `setWebhook`) and must match its stored secret exactly (401 and nothing stored otherwise).
 * A text message becomes an inbound message threaded under the chat's latest; a callback button's
 * tap is answered (`answerCallbackQuery`, a modal when the button asked for `alert`) and becomes a
 * `button_tap` interaction; a `message_reaction` on a message of the inbox is kept in that message's
 * `channelMetadata.reactions` (the reactor's current set). Other updates (edits) are acknowledged and
 * not stored. Every update carries its key `<bot id>:<update_id>`: the ingress lands it once
 * (`provider_callbacks`), and a redelivery Telegram makes (after a timeout or an error answer) is
 * acknowledged here at once, without answering a tap twice.
 */
export async function telegramUpdate(
  _provider: string,
  payload: unknown,
  request: ProviderRequest,
): Promise<ProviderEventResult> {
  const secret = request.headers?.get(SECRET_HEADER) ?? null;
  if (!secret) throw refused(`The ${SECRET_HEADER} header is missing.`);
  const botId = botIdOfSecret(secret);
  const bot = botId ? await botById(request.db, botId) : null;
  if (!bot || bot.status !== "active" || !bot.secretCiphertext) throw refused(`The ${SECRET_HEADER} does not verify.`);
  const stored = await openBot(request.db, bot);
  if (!sameSecret(secret, stored.webhookSecret)) throw refused(`The ${SECRET_HEADER} does not verify.`);

  const parsed = updateSchema.safeParse(payload);
  if (!parsed.success) throw invalidRequest("Not a Telegram update.", null);
  const update = parsed.data;
  const botAddress = bot.address;
  const callbackKey = `${botAddress}:${update.update_id}`;
  const [seen] = await request.db
    .select({ key: providerCallbacks.callbackKey })
    .from(providerCallbacks)
    .where(and(eq(providerCallbacks.provider, "telegram"), eq(providerCallbacks.callbackKey, callbackKey)));
  if (seen) return { inbound: [], interactions: [], callbackKey };

  if (update.message) {
    const m = update.message;
    const text = m.text ?? m.caption ?? null;
    if (text === null) return { inbound: [], interactions: [], callbackKey };
    const chatId = String(m.chat.id);
    const previous = await latestConversationKey(request.db, bot.inboxId, "telegram", chatId);
    const inbound: InboundMessage = {
      channel: "telegram",
      deliveredTo: [botAddress],
      from: { address: chatId, name: nameOf(m.from) ?? m.chat.title ?? null },
      to: [botAddress],
      cc: [],
      replyTo: null,
      content: { subject: m.chat.title ?? "", text, html: null, media: [] },
      thread: {
        messageKey: `<${m.message_id}.${chatId}.${botAddress}@telegram>`,
        inReplyTo: previous,
        references: previous ? [previous] : [],
      },
      metadata: {
        provider: "telegram",
        providerMessageId: providerMessageIdOf(chatId, m.message_id),
        botId: botAddress,
        chatId,
        chatType: m.chat.type,
        telegramMessageId: m.message_id,
        fromUserId: m.from ? String(m.from.id) : null,
        fromUsername: m.from?.username ?? null,
      },
    };
    return { inbound: [inbound], interactions: [], callbackKey };
  }

  if (update.callback_query) {
    const q = update.callback_query;
    const { callback, alert } = parseCallbackData(q.data ?? "");
    try {
      await botApi(stored.botToken).answerCallbackQuery(q.id, alert ? { show_alert: true } : {});
    } catch (err) {
      // The tap is still recorded; Telegram shows a spinner until it times out.
      log.warn("telegram answerCallbackQuery failed", { botId: botAddress, err: describe(err) });
    }
    const chatId = q.message ? String(q.message.chat.id) : String(q.from.id);
    const tap: InboundInteraction = {
      channel: "telegram",
      type: "button_tap",
      deliveredTo: botAddress,
      from: { address: chatId, name: nameOf(q.from) },
      providerMessageId: q.message ? providerMessageIdOf(chatId, q.message.message_id) : null,
      data: {
        callback,
        alert,
        chatId,
        fromUserId: String(q.from.id),
        fromUsername: q.from.username ?? null,
        telegramMessageId: q.message?.message_id ?? null,
      },
    };
    return { inbound: [], interactions: [tap], callbackKey };
  }

  if (update.message_reaction) await storeReaction(request.db, bot.inboxId, update.message_reaction);
  return { inbound: [], interactions: [], callbackKey };
}
