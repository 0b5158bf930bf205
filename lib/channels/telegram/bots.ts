import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { inboxConnections } from "@/db/schema";
import { openSecret, sealSecret } from "@/lib/trust/secrets";

/**
 * A connected bot: an inbox connection on the telegram channel whose address is the bot's id and
 * whose sealed secret holds the bot token and the webhook's `secret_token` (AES-GCM envelope
 * encryption, lib/trust/secrets.ts, bound to the bot). Neither ever leaves this folder.
 */
export interface BotSecret {
  botToken: string;
  webhookSecret: string;
}

export type BotConnection = typeof inboxConnections.$inferSelect;

const context = (botId: string) => `inbox_connection:telegram:${botId}`;

/** A new webhook `secret_token` (Telegram allows 1-256 of `A-Za-z0-9_-`): the bot's id, then 32 random bytes. */
export const newWebhookSecret = (botId: string) => `${botId}_${randomBytes(32).toString("base64url")}`;

/** The bot id a webhook secret names (what the update's `X-Telegram-Bot-Api-Secret-Token` starts with), or null. */
export const botIdOfSecret = (secret: string): string | null =>
  /^(\d{1,20})_[A-Za-z0-9_-]{20,200}$/.exec(secret)?.[1] ?? null;

export const sealBot = (db: DbOrTx, botId: string, s: BotSecret) => sealSecret(db, JSON.stringify(s), context(botId));

export async function openBot(db: DbOrTx, c: BotConnection): Promise<BotSecret> {
  if (!c.secretCiphertext) throw new Error(`telegram connection ${c.id} has no credential`);
  return JSON.parse((await openSecret(db, c.secretCiphertext, context(c.address))).toString("utf8")) as BotSecret;
}

/** The bot connected to an inbox (active), or null. */
export async function botOfInbox(db: DbOrTx, inboxId: string): Promise<BotConnection | null> {
  const [row] = await db
    .select()
    .from(inboxConnections)
    .where(
      and(
        eq(inboxConnections.inboxId, inboxId),
        eq(inboxConnections.channel, "telegram"),
        eq(inboxConnections.status, "active"),
      ),
    );
  return row ?? null;
}

/** The connection of a bot by its id (any status), or null. */
export async function botById(db: DbOrTx, botId: string): Promise<BotConnection | null> {
  const [row] = await db
    .select()
    .from(inboxConnections)
    .where(and(eq(inboxConnections.channel, "telegram"), eq(inboxConnections.address, botId)));
  return row ?? null;
}
