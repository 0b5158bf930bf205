import { and, eq, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { DbOrTx } from "@/db";
import { messages } from "@/db/schema";
import { providerMessageIdOf } from ".";

const reactionType = z.union([
  z.looseObject({ type: z.literal("emoji"), emoji: z.string() }),
  z.looseObject({ type: z.literal("custom_emoji"), custom_emoji_id: z.string() }),
  z.looseObject({ type: z.literal("paid") }),
  z.looseObject({ type: z.string() }),
]);

/** Telegram's `message_reaction` update: someone's reactions on a message changed (the new set replaces the old). */
export const messageReactionSchema = z.looseObject({
  chat: z.looseObject({ id: z.number() }),
  message_id: z.number(),
  user: z.looseObject({ id: z.number(), username: z.string().optional() }).optional(),
  actor_chat: z.looseObject({ id: z.number() }).optional(),
  date: z.number(),
  old_reaction: z.array(reactionType),
  new_reaction: z.array(reactionType),
});
export type MessageReactionUpdate = z.infer<typeof messageReactionSchema>;

/** One reactor's current reactions on a message, as kept in its `channelMetadata.reactions`. */
export interface StoredReaction {
  /** The Telegram user who reacted, or null for an anonymous reaction of a chat (`actorChatId`). */
  userId: string | null;
  username: string | null;
  actorChatId: string | null;
  /** The reactions: the emoji itself, `custom_emoji:<id>` or `paid`. */
  emojis: string[];
  at: string;
}

const label = (r: z.infer<typeof reactionType>): string =>
  "emoji" in r && typeof r.emoji === "string"
    ? r.emoji
    : "custom_emoji_id" in r && typeof r.custom_emoji_id === "string"
      ? `custom_emoji:${r.custom_emoji_id}`
      : String(r.type);

/**
 * Applies a `message_reaction` update to the message of the bot's inbox it concerns (a message the
 * bot sent, or one that arrived through it): the reactor's entry in `channelMetadata.reactions` is
 * replaced by the update's new set (removed when empty), under the message's row lock. Setting the
 * reactor's current set is idempotent, so a redelivered update changes nothing more. False when the
 * message is not one of the inbox's (Telegram only sends reactions of chats the bot administers or
 * is in, not necessarily on its own messages).
 */
export async function storeReaction(db: DbOrTx, inboxId: string, r: MessageReactionUpdate): Promise<boolean> {
  const pid = providerMessageIdOf(r.chat.id, r.message_id);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ id: messages.id, channelMetadata: messages.channelMetadata })
      .from(messages)
      .where(
        and(
          eq(messages.inboxId, inboxId),
          eq(messages.channel, "telegram"),
          or(eq(messages.providerMessageId, pid), sql`${messages.channelMetadata}->>'providerMessageId' = ${pid}`),
        ),
      )
      .limit(1)
      .for("update");
    if (!row) return false;
    const userId = r.user ? String(r.user.id) : null;
    const actorChatId = r.actor_chat ? String(r.actor_chat.id) : null;
    const current = Array.isArray(row.channelMetadata?.reactions)
      ? (row.channelMetadata.reactions as StoredReaction[])
      : [];
    const others = current.filter((e) => e.userId !== userId || e.actorChatId !== actorChatId);
    const emojis = r.new_reaction.map(label);
    const reactions: StoredReaction[] =
      emojis.length === 0
        ? others
        : [
            ...others,
            {
              userId,
              username: r.user?.username ?? null,
              actorChatId,
              emojis,
              at: new Date(r.date * 1000).toISOString(),
            },
          ];
    await tx
      .update(messages)
      .set({ channelMetadata: { ...(row.channelMetadata ?? {}), reactions } })
      .where(eq(messages.id, row.id));
    return true;
  });
}
