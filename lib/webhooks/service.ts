import { randomBytes } from "node:crypto";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { webhookDeliveries, webhooks } from "@/db/schema";
import { ApiError, invalidRequest, notFound } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { recordAudit } from "@/lib/core/audit";
import type { Principal } from "@/lib/auth/principal";
import { env } from "@/lib/env";
import { type DeliveryRow, post, recordAttempt, type WebhookRow } from "./deliver";
import { queueDeliveries } from "./dispatcher";
import { newWebhookSecret } from "./signing";
import { webhookUrlProblem } from "./url-guard";

export function toWebhook(w: WebhookRow, now: Date = new Date()) {
  const secondaryActive = Boolean(w.previousSecret && w.previousSecretExpiresAt && w.previousSecretExpiresAt > now);
  return {
    object: "webhook" as const,
    id: w.id,
    url: w.url,
    events: w.events,
    status: w.status,
    createdAt: w.createdAt.toISOString(),
    label: w.label,
    lastDeliveryAt: w.lastDeliveryAt?.toISOString() ?? null,
    secondarySecretExpiresAt: secondaryActive ? (w.previousSecretExpiresAt?.toISOString() ?? null) : null,
    secondarySecretActive: secondaryActive,
    consecutiveFailures: w.consecutiveFailures,
    pausedReason: w.pausedReason,
    autoPaused: w.autoPaused,
    autoPausedAt: w.autoPausedAt?.toISOString() ?? null,
    rateLimitPerSecond: w.rateLimitPerSecond,
  };
}

export function toDelivery(d: DeliveryRow) {
  return {
    id: d.id,
    webhookId: d.webhookId,
    eventId: d.eventId,
    eventType: d.eventType,
    attempt: d.attempt,
    status: d.status,
    responseStatus: d.responseStatus,
    durationMs: d.durationMs,
    error: d.error,
    responseSnippet: d.responseSnippet,
    responseHeaders: d.responseHeaders,
    request: d.request,
    replay: d.replay,
    createdAt: d.createdAt.toISOString(),
  };
}

async function checkUrl(url: string): Promise<void> {
  const problem = await webhookUrlProblem(url);
  if (problem) throw invalidRequest(`The URL ${problem}.`, "url");
}

export async function findWebhook(db: DbOrTx, principal: Principal, webhookId: string): Promise<WebhookRow> {
  const [w] = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.orgId, principal.orgId), eq(webhooks.id, webhookId)));
  if (!w) throw notFound("webhook", "webhookId");
  return w;
}

export async function listWebhooks(db: DbOrTx, principal: Principal) {
  const rows = await db
    .select()
    .from(webhooks)
    .where(eq(webhooks.orgId, principal.orgId))
    .orderBy(asc(webhooks.createdAt), asc(webhooks.id));
  return { webhooks: rows.map((w) => toWebhook(w)) };
}

export async function getWebhook(db: DbOrTx, principal: Principal, webhookId: string) {
  return { webhook: toWebhook(await findWebhook(db, principal, webhookId)) };
}

/** Creates an endpoint; its signing secret is returned only here (and at rotation). */
export async function createWebhook(
  db: Db,
  principal: Principal,
  input: { url: string; events: string[]; label?: string | null; rateLimitPerSecond?: number | null },
) {
  await checkUrl(input.url);
  const secret = newWebhookSecret();
  return db.transaction(async (tx) => {
    const [w] = await tx
      .insert(webhooks)
      .values({
        orgId: principal.orgId,
        url: input.url,
        events: [...new Set(input.events)],
        label: input.label ?? null,
        rateLimitPerSecond: input.rateLimitPerSecond ?? null,
        secret,
      })
      .returning();
    if (!w) throw new Error("webhook insert returned nothing");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "webhook.created",
      resourceType: "webhook",
      resourceId: w.id,
      metadata: { url: w.url, events: w.events },
    });
    return { webhook: toWebhook(w), secret };
  });
}

async function change(
  db: Db,
  principal: Principal,
  webhookId: string,
  action: string,
  patch: Partial<typeof webhooks.$inferInsert>,
) {
  return db.transaction(async (tx) => {
    await findWebhook(tx, principal, webhookId);
    const [w] = await tx
      .update(webhooks)
      .set(patch)
      .where(and(eq(webhooks.orgId, principal.orgId), eq(webhooks.id, webhookId)))
      .returning();
    if (!w) throw notFound("webhook", "webhookId");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action,
      resourceType: "webhook",
      resourceId: w.id,
      metadata: { changed: Object.keys(patch) },
    });
    return w;
  });
}

export async function updateWebhook(
  db: Db,
  principal: Principal,
  webhookId: string,
  input: { url?: string; events?: string[]; label?: string | null; rateLimitPerSecond?: number | null },
) {
  if (input.url !== undefined) await checkUrl(input.url);
  const patch: Partial<typeof webhooks.$inferInsert> = {};
  if (input.url !== undefined) patch.url = input.url;
  if (input.events !== undefined) patch.events = [...new Set(input.events)];
  if (input.label !== undefined) patch.label = input.label;
  if (input.rateLimitPerSecond !== undefined) patch.rateLimitPerSecond = input.rateLimitPerSecond;
  return { webhook: toWebhook(await change(db, principal, webhookId, "webhook.updated", patch)) };
}

export async function deleteWebhook(db: Db, principal: Principal, webhookId: string) {
  await db.transaction(async (tx) => {
    const w = await findWebhook(tx, principal, webhookId);
    await tx.delete(webhooks).where(eq(webhooks.id, w.id));
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "webhook.deleted",
      resourceType: "webhook",
      resourceId: w.id,
      metadata: { url: w.url },
    });
  });
  return { deleted: true as const, id: webhookId };
}

export async function pauseWebhook(db: Db, principal: Principal, webhookId: string) {
  return {
    webhook: toWebhook(
      await change(db, principal, webhookId, "webhook.paused", {
        status: "paused",
        pausedReason: "manual",
        autoPaused: false,
      }),
    ),
  };
}

/** `paused` → `active`, clearing the circuit breaker. */
export async function resumeWebhook(db: Db, principal: Principal, webhookId: string) {
  return {
    webhook: toWebhook(
      await change(db, principal, webhookId, "webhook.resumed", {
        status: "active",
        pausedReason: null,
        autoPaused: false,
        autoPausedAt: null,
        consecutiveFailures: 0,
      }),
    ),
  };
}

/** A new secret; the previous one keeps signing (both signatures sent) until the window ends. */
export async function rotateWebhookSecret(db: Db, principal: Principal, webhookId: string) {
  const current = await findWebhook(db, principal, webhookId);
  const secret = newWebhookSecret();
  const w = await change(db, principal, webhookId, "webhook.secret_rotated", {
    secret,
    previousSecret: current.secret,
    previousSecretExpiresAt: new Date(Date.now() + env.WEBHOOK_ROTATION_WINDOW_HOURS * 3_600_000),
  });
  return { webhook: toWebhook(w), secret };
}

/** Sends a signed `webhook.test` ping now and logs it like any delivery. */
export async function testWebhook(db: Db, principal: Principal, webhookId: string) {
  const w = await findWebhook(db, principal, webhookId);
  const envelope = {
    eventId: `evt_test_${randomBytes(12).toString("base64url")}`,
    type: "webhook.test",
    createdAt: new Date().toISOString(),
    data: { webhookId: w.id, test: true },
  };
  const outcome = await post(w, envelope);
  const row = await recordAttempt(db, w, envelope, 1, outcome, false);
  return { delivery: toDelivery(row) };
}

/** Re-sends every event whose deliveries to this endpoint failed and never succeeded. */
export async function redriveWebhook(db: Db, principal: Principal, webhookId: string) {
  const w = await findWebhook(db, principal, webhookId);
  if (w.status !== "active") throw new ApiError("conflict", "Resume the webhook before redriving it.", "webhookId");
  const failed = await db
    .selectDistinct({ eventId: webhookDeliveries.eventId })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, w.id),
        eq(webhookDeliveries.status, "failed"),
        sql`${webhookDeliveries.eventType} <> 'webhook.test'`,
        sql`not exists (select 1 from webhook_deliveries s where s.webhook_id = ${w.id} and s.event_id = ${webhookDeliveries.eventId} and s.status = 'succeeded')`,
      ),
    );
  await queueDeliveries(
    db,
    failed.map((f) => ({ orgId: w.orgId, webhookId: w.id, eventId: f.eventId, replay: true })),
  );
  return { webhookId: w.id, redriven: failed.length };
}

export async function listDeliveries(
  db: DbOrTx,
  principal: Principal,
  webhookId: string,
  input: { limit: number; cursor?: string },
) {
  const w = await findWebhook(db, principal, webhookId);
  const after = decodeCursor(input.cursor);
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, w.id),
        keysetBefore(webhookDeliveries.createdAt, webhookDeliveries.id, after),
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(input.limit + 1);
  const page = toPage(rows, input.limit);
  return { object: "list" as const, data: page.items.map(toDelivery), pagination: page.pagination };
}
