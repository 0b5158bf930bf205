import { and, desc, eq, or, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { messages } from "@/db/schema";
import type { ChannelId } from "./definitions";

/**
 * The key (`messageIdHeader`) of the latest message of the inbox on `channel` exchanged with
 * `remote` (sent by it, or sent to it), or null: what a chat-style channel (SMS, Telegram) threads
 * an inbound message under, one conversation per remote party.
 */
export async function latestConversationKey(
  db: DbOrTx,
  inboxId: string,
  channel: ChannelId,
  remote: string,
): Promise<string | null> {
  const [row] = await db
    .select({ key: messages.messageIdHeader })
    .from(messages)
    .where(
      and(
        eq(messages.inboxId, inboxId),
        eq(messages.channel, channel),
        or(eq(messages.fromAddress, remote), sql`${remote} = any(${messages.to})`),
      ),
    )
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(1);
  return row?.key ?? null;
}
