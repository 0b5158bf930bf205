import { and, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { messages } from "@/db/schema";
import { mayUseInbox, type Principal } from "@/lib/auth/principal";
import { ApiError, invalidRequest, notFound } from "@/lib/core/errors";
import { botApi, requestError } from "./api";
import { botOfInbox, openBot } from "./bots";
import type { TelegramButton } from "./definition";
import { inlineKeyboard } from ".";
import type { TELEGRAM_REACTIONS } from "./reactions";

export { TELEGRAM_REACTIONS } from "./reactions";

export interface MessageAction {
  object: "message_action";
  id: string;
  channel: "telegram";
  edited?: boolean;
  editedAt?: string;
  reacted?: boolean;
  emoji?: string | null;
  big?: boolean;
}

/** A sent Telegram message of the caller's, with its chat and Telegram message id, and its inbox's bot. */
async function sentTelegram(db: Db, principal: Principal, messageId: string) {
  const [row] = await db
    .select()
    .from(messages)
    .where(and(eq(messages.orgId, principal.orgId), eq(messages.id, messageId)));
  if (!row) throw notFound("message", "messageId");
  if (!mayUseInbox(principal, row.inboxId))
    throw new ApiError("not_permitted", "This key may not act on the message's inbox.", "messageId");
  if (row.channel !== "telegram")
    throw invalidRequest("Only Telegram messages can be edited or reacted to.", "messageId");
  const [chat, tgId] = (row.providerMessageId ?? "").split(":");
  if (row.direction !== "outbound" || row.status !== "sent" || !chat || !tgId)
    throw invalidRequest("Only a sent Telegram message can be edited or reacted to.", "messageId");
  const bot = await botOfInbox(db, row.inboxId);
  if (!bot) throw invalidRequest("The message's inbox has no Telegram bot connected.", "messageId");
  return { row, chat, tgId: Number(tgId), token: (await openBot(db, bot)).botToken };
}

/** `POST /v1/messages/{id}/edit`: the sent message's text (and buttons) changed in the chat and here. */
export async function editTelegramMessage(
  db: Db,
  principal: Principal,
  messageId: string,
  input: { text: string; buttons?: TelegramButton[][] },
): Promise<MessageAction> {
  const m = await sentTelegram(db, principal, messageId);
  try {
    await botApi(m.token).editMessageText(m.chat, m.tgId, input.text, {
      ...(input.buttons ? { reply_markup: inlineKeyboard(input.buttons) } : {}),
    });
  } catch (err) {
    throw requestError(err, "text");
  }
  const editedAt = new Date();
  await db
    .update(messages)
    .set({
      textBody: input.text,
      // An edit without buttons removes the message's keyboard in Telegram.
      channelMetadata: {
        ...(m.row.channelMetadata ?? {}),
        editedAt: editedAt.toISOString(),
        buttons: input.buttons ?? null,
      },
    })
    .where(eq(messages.id, m.row.id));
  return {
    object: "message_action",
    id: m.row.id,
    channel: "telegram",
    edited: true,
    editedAt: editedAt.toISOString(),
  };
}

/** `POST /v1/messages/{id}/react` and `/unreact`: the bot's reaction on the sent message set or removed. */
export async function reactTelegramMessage(
  db: Db,
  principal: Principal,
  messageId: string,
  reaction: { emoji: string; big: boolean } | null,
): Promise<MessageAction> {
  const m = await sentTelegram(db, principal, messageId);
  try {
    await botApi(m.token).setMessageReaction(
      m.chat,
      m.tgId,
      reaction ? [{ type: "emoji", emoji: reaction.emoji as (typeof TELEGRAM_REACTIONS)[number] }] : [],
      reaction?.big ? { is_big: true } : {},
    );
  } catch (err) {
    throw requestError(err, "emoji");
  }
  await db
    .update(messages)
    .set({ channelMetadata: { ...(m.row.channelMetadata ?? {}), reaction: reaction?.emoji ?? null } })
    .where(eq(messages.id, m.row.id));
  return {
    object: "message_action",
    id: m.row.id,
    channel: "telegram",
    reacted: reaction !== null,
    emoji: reaction?.emoji ?? null,
    big: reaction?.big ?? false,
  };
}
