import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq, like } from "drizzle-orm";
import type { Db } from "@/db";
import { inboxConnections, slackApps, slackOauthStates } from "@/db/schema";
import { recordAudit } from "@/lib/core/audit";
import type { Principal } from "@/lib/auth/principal";
import { notFound } from "@/lib/core/errors";
import { env, publicBaseUrl } from "@/lib/env";
import { findInbox } from "@/lib/inboxes/service";
import { sealSecret } from "@/lib/trust/secrets";
import { findSlackApp, managedApp, secretContext, toSlackApp } from "./app";
import type { z } from "zod";
import type { slackAppCreateSchema } from "./contracts";

/** The bot scopes an install asks for: mentions, DMs, channel history (ambient), posting. */
export const SLACK_BOT_SCOPES = "app_mentions:read,chat:write,im:history,channels:history,groups:history";
/** How long an install URL's `state` is good for. */
export const STATE_TTL_MS = 10 * 60 * 1000;
export const oauthRedirectUri = () => `${publicBaseUrl()}/v1/providers/slack/oauth/callback`;
export const hashState = (secret: string) => createHash("sha256").update(secret).digest("hex");

export async function listSlackApps(db: Db, principal: Principal) {
  const rows = await db
    .select()
    .from(slackApps)
    .where(and(eq(slackApps.orgId, principal.orgId), eq(slackApps.status, "active")))
    .orderBy(asc(slackApps.createdAt), asc(slackApps.id));
  return { apps: rows.map((r) => toSlackApp(r, true)) };
}

export async function getSlackApp(db: Db, principal: Principal, id: string) {
  return { app: toSlackApp(await findSlackApp(db, principal, id)) };
}

export async function createSlackApp(db: Db, principal: Principal, input: z.infer<typeof slackAppCreateSchema>) {
  const managed = input.origin === "managed" ? managedApp() : null;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(slackApps)
      .values({
        orgId: principal.orgId,
        origin: input.origin,
        appId: managed ? managed.appId : input.origin === "byo" ? input.appId : "",
        clientId: managed ? managed.clientId : input.origin === "byo" ? input.clientId : "",
        name: input.name ?? null,
        contextMode: input.contextMode ?? "mentions",
        ambientMode: input.ambientMode ?? "off",
      })
      .returning();
    if (!row) throw new Error("slack app insert returned nothing");
    let app = row;
    if (input.origin === "byo") {
      const [sealed] = await tx
        .update(slackApps)
        .set({
          clientSecretCiphertext: await sealSecret(tx, input.clientSecret, secretContext(row.id, "client")),
          signingSecretCiphertext: await sealSecret(tx, input.signingSecret, secretContext(row.id, "signing")),
        })
        .where(eq(slackApps.id, row.id))
        .returning();
      if (sealed) app = sealed;
    }
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "slack_app.created",
      resourceType: "slack_app",
      resourceId: app.id,
      metadata: { origin: app.origin, appId: app.appId, contextMode: app.contextMode },
    });
    return { app: toSlackApp(app) };
  });
}

export async function deleteSlackApp(db: Db, principal: Principal, id: string) {
  return db.transaction(async (tx) => {
    const row = await findSlackApp(tx, principal, id, true);
    const [app] = await tx
      .update(slackApps)
      .set({ status: "deleted", updatedAt: new Date() })
      .where(eq(slackApps.id, row.id))
      .returning();
    if (!app) throw new Error("slack app update returned nothing");
    // Its installations in this organization stop routing.
    await tx
      .update(inboxConnections)
      .set({ status: "disconnected", updatedAt: new Date() })
      .where(
        and(
          eq(inboxConnections.orgId, principal.orgId),
          eq(inboxConnections.channel, "slack"),
          like(inboxConnections.address, `${row.appId}:%`),
        ),
      );
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "slack_app.deleted",
      resourceType: "slack_app",
      resourceId: app.id,
      metadata: { appId: app.appId },
    });
    return { app: toSlackApp(app) };
  });
}

export async function setSlackAppAmbient(
  db: Db,
  principal: Principal,
  id: string,
  input: { contextMode: "mentions" | "ambient"; ambientMode?: "off" | "store" },
) {
  return db.transaction(async (tx) => {
    const row = await findSlackApp(tx, principal, id, true);
    const ambientMode = input.contextMode === "mentions" ? "off" : (input.ambientMode ?? row.ambientMode);
    const [app] = await tx
      .update(slackApps)
      .set({ contextMode: input.contextMode, ambientMode, updatedAt: new Date() })
      .where(eq(slackApps.id, row.id))
      .returning();
    if (!app) throw new Error("slack app update returned nothing");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "slack_app.ambient_set",
      resourceType: "slack_app",
      resourceId: app.id,
      metadata: { contextMode: app.contextMode, ambientMode: app.ambientMode },
    });
    return { appId: app.appId, contextMode: app.contextMode, ambientMode: app.ambientMode };
  });
}

/**
 * Slack's OAuth v2 authorize URL for the app with a fresh `state`: `<id>.<secret>`, whose row names
 * the app and the inbox, expires in 10 minutes and is used once; only the secret's hash is stored.
 */
export async function createSlackInstallUrl(db: Db, principal: Principal, id: string, inboxId: string) {
  return db.transaction(async (tx) => {
    const app = await findSlackApp(tx, principal, id);
    const inbox = await findInbox(tx, principal, inboxId).catch(() => null);
    if (!inbox || inbox.status === "deleted") throw notFound("inbox", "inboxId");
    const secret = randomBytes(24).toString("base64url");
    const expiresAt = new Date(Date.now() + STATE_TTL_MS);
    const [state] = await tx
      .insert(slackOauthStates)
      .values({ orgId: principal.orgId, slackAppId: app.id, inboxId, secretHash: hashState(secret), expiresAt })
      .returning({ id: slackOauthStates.id });
    if (!state) throw new Error("state insert returned nothing");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "slack_app.install_url_created",
      resourceType: "slack_app",
      resourceId: app.id,
      metadata: { inboxId },
    });
    const url = new URL(env.SLACK_AUTHORIZE_URL);
    url.searchParams.set("client_id", app.clientId);
    url.searchParams.set("scope", SLACK_BOT_SCOPES);
    url.searchParams.set("redirect_uri", oauthRedirectUri());
    url.searchParams.set("state", `${state.id}.${secret}`);
    return { url: url.toString(), expiresAt: expiresAt.toISOString() };
  });
}
