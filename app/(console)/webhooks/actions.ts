"use server";

import { DELIVERY_LOG_SIZE } from "@/components/console/config/limits";
import { consoleAction } from "@/lib/console/action";
import * as contracts from "@/lib/contracts/webhooks";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  pauseWebhook,
  redriveWebhook,
  resumeWebhook,
  rotateWebhookSecret,
  testWebhook,
} from "@/lib/webhooks/service";

const params = contracts.getWebhook.params;

/** Creates an endpoint (the URL passes the SSRF guard first); the result carries its signing secret once. */
export async function createWebhookAction(input: unknown) {
  return consoleAction("webhooks:write", contracts.createWebhook.body, input, (ctx, body) => createWebhook(ctx.db, ctx.principal, body));
}

/** The endpoint's current state (status, breaker, failures) and its newest delivery attempts, for polling. */
export async function webhookStateAction(input: unknown) {
  return consoleAction("webhooks:read", params, input, async (ctx, { webhookId }) => {
    const [{ webhook }, log] = await Promise.all([getWebhook(ctx.db, ctx.principal, webhookId), listDeliveries(ctx.db, ctx.principal, webhookId, { limit: DELIVERY_LOG_SIZE })]);
    return { webhook, deliveries: log.data, hasMore: log.pagination.hasMore };
  });
}

/** Sends a signed `webhook.test` ping now; the attempt lands in the log. */
export async function testWebhookAction(input: unknown) {
  return consoleAction("webhooks:write", params, input, (ctx, { webhookId }) => testWebhook(ctx.db, ctx.principal, webhookId));
}

/** Pauses deliveries by hand; failed attempts can be redriven after resuming. */
export async function pauseWebhookAction(input: unknown) {
  return consoleAction("webhooks:write", params, input, (ctx, { webhookId }) => pauseWebhook(ctx.db, ctx.principal, webhookId));
}

/** Resumes the endpoint and closes its circuit breaker. */
export async function resumeWebhookAction(input: unknown) {
  return consoleAction("webhooks:write", params, input, (ctx, { webhookId }) => resumeWebhook(ctx.db, ctx.principal, webhookId));
}

/** A new signing secret (returned once); the previous one keeps signing during the rotation window. */
export async function rotateSecretAction(input: unknown) {
  return consoleAction("webhooks:write", params, input, (ctx, { webhookId }) => rotateWebhookSecret(ctx.db, ctx.principal, webhookId));
}

/** Re-sends every event whose deliveries failed and never succeeded (the endpoint must be active). */
export async function redriveWebhookAction(input: unknown) {
  return consoleAction("webhooks:write", params, input, (ctx, { webhookId }) => redriveWebhook(ctx.db, ctx.principal, webhookId));
}

/** Deletes the endpoint and its delivery log. */
export async function deleteWebhookAction(input: unknown) {
  return consoleAction("webhooks:write", params, input, (ctx, { webhookId }) => deleteWebhook(ctx.db, ctx.principal, webhookId));
}
