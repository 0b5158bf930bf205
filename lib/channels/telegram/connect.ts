import { eq } from "drizzle-orm";
import type { Db } from "@/db";
import { inboxConnections } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { ApiError, invalidRequest } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { addConnection } from "@/lib/inboxes/connections";
import { findInbox, type Inbox, toInbox } from "@/lib/inboxes/service";
import { log } from "@/lib/log";
import { botApi, describe, requestError } from "./api";
import { botById, botOfInbox, newWebhookSecret, openBot, sealBot } from "./bots";

/** The updates a connected bot's webhook asks Telegram for. */
export const ALLOWED_UPDATES = ["message", "callback_query", "message_reaction"] as const;

/** Where Telegram posts a bot's updates: the public base URL (else the connecting request's origin). */
export const webhookUrl = (origin: string | null) => {
  const base = env.PUBLIC_BASE_URL ?? origin;
  if (!base) throw invalidRequest("Set PUBLIC_BASE_URL: Telegram needs this service's public address.", null);
  return `${base.replace(/\/+$/, "")}/v1/providers/telegram/events`;
};

/**
 * Connects a bot to an inbox: `getMe` checks the token (refused: 400 naming `botToken`), then
 * `setWebhook` registers this service's webhook with a new per-bot `secret_token` and the updates
 * it handles; then, in one transaction, the connection (the token and the secret sealed) and its
 * audit row. The inbox's earlier bot is disconnected; a bot another inbox of the organization
 * used moves here (a bot active in another organization's inbox is 409).
 * Calls to Telegram happen before the commit and change nothing of ours; a commit that fails leaves
 * a webhook whose secret no row holds, so its updates are refused.
 */
export async function connectTelegram(
  db: Db,
  principal: Principal,
  inboxId: string,
  botToken: string,
  origin: string | null,
): Promise<{ inbox: Inbox }> {
  const inbox = await findInbox(db, principal, inboxId);
  if (inbox.status === "deleted") throw invalidRequest("A deleted inbox cannot be connected.", "inboxId");
  const url = webhookUrl(origin);
  const api = botApi(botToken);
  let me: Awaited<ReturnType<typeof api.getMe>>;
  try {
    me = await api.getMe();
  } catch (err) {
    throw requestError(err, "botToken");
  }
  const botId = String(me.id);
  const existing = await botById(db, botId);
  if (existing && existing.status === "active" && existing.orgId !== principal.orgId)
    throw new ApiError("conflict", "This bot is connected to an inbox of another organization.", "botToken");
  const webhookSecret = newWebhookSecret(botId);
  try {
    await api.setWebhook(url, { secret_token: webhookSecret, allowed_updates: [...ALLOWED_UPDATES] });
  } catch (err) {
    throw requestError(err, "botToken");
  }
  const sealed = await sealBot(db, botId, { botToken, webhookSecret });
  return db.transaction(async (tx) => {
    const current = await findInbox(tx, principal, inboxId);
    // One bot per inbox: an earlier one is disconnected (its updates are refused from now on).
    const earlier = await botOfInbox(tx, current.id);
    if (earlier && earlier.address !== botId)
      await tx
        .update(inboxConnections)
        .set({ status: "disconnected", secretCiphertext: null, updatedAt: new Date() })
        .where(eq(inboxConnections.id, earlier.id));
    if (existing) {
      await tx
        .update(inboxConnections)
        .set({
          orgId: current.orgId,
          inboxId: current.id,
          status: "active",
          secretCiphertext: sealed,
          updatedAt: new Date(),
        })
        .where(eq(inboxConnections.id, existing.id));
    } else {
      await addConnection(tx, current, "telegram", botId, sealed);
    }
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "inbox.telegram_connected",
      resourceType: "inbox",
      resourceId: current.id,
      metadata: { botId, botUsername: me.username },
    });
    return { inbox: toInbox(current) };
  });
}

/** Disconnects the inbox's bot (its webhook deleted, best effort, after the commit); nothing to do when none is. */
export async function disconnectTelegram(db: Db, principal: Principal, inboxId: string): Promise<{ inbox: Inbox }> {
  const result = await db.transaction(async (tx) => {
    const inbox = await findInbox(tx, principal, inboxId);
    const bot = await botOfInbox(tx, inbox.id);
    if (!bot) {
      noAuditNeeded("no Telegram bot was connected");
      return { inbox, token: null as string | null };
    }
    const token = (await openBot(tx, bot)).botToken;
    await tx
      .update(inboxConnections)
      .set({ status: "disconnected", secretCiphertext: null, updatedAt: new Date() })
      .where(eq(inboxConnections.id, bot.id));
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "inbox.telegram_disconnected",
      resourceType: "inbox",
      resourceId: inbox.id,
      metadata: { botId: bot.address },
    });
    return { inbox, token };
  });
  if (result.token) {
    try {
      await botApi(result.token).deleteWebhook();
    } catch (err) {
      // Its updates are refused anyway (no secret is stored for it any more).
      log.warn("telegram deleteWebhook failed", { inboxId, err: describe(err) });
    }
  }
  return { inbox: toInbox(result.inbox) };
}
