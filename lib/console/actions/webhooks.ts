"use server";

import { DELIVERY_LOG_SIZE } from "@/components/console/config/limits";
import { runAction } from "@/lib/console/action";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  pauseWebhook,
  redriveWebhook,
  resumeWebhook,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
} from "@/lib/webhooks/operations";

/** Creates an endpoint (the URL passes the SSRF guard first); the result carries its signing secret once. */
export async function createWebhookAction(input: unknown) {
  return runAction(createWebhook, input);
}

/** Changes an endpoint (the console changes its delivery rate limit; null: none). */
export async function updateWebhookAction(input: unknown) {
  return runAction(updateWebhook, input);
}

/** The endpoint's current state (status, breaker, failures) and its newest delivery attempts, for polling. */
export async function webhookStateAction(input: unknown) {
  return runAction(getWebhook, input, {
    then: async ({ webhook }, ctx) => {
      const log = await ctx.invoke(listWebhookDeliveries, {
        params: { webhookId: webhook.id },
        query: { limit: DELIVERY_LOG_SIZE },
      });
      return { webhook, deliveries: log.data, hasMore: log.pagination.hasMore };
    },
  });
}

/** Sends a signed `webhook.test` ping now; the attempt lands in the log. */
export async function testWebhookAction(input: unknown) {
  return runAction(testWebhook, input);
}

/** Pauses deliveries by hand; failed attempts can be redriven after resuming. */
export async function pauseWebhookAction(input: unknown) {
  return runAction(pauseWebhook, input);
}

/** Resumes the endpoint and closes its circuit breaker. */
export async function resumeWebhookAction(input: unknown) {
  return runAction(resumeWebhook, input);
}

/** A new signing secret (returned once); the previous one keeps signing during the rotation window. */
export async function rotateSecretAction(input: unknown) {
  return runAction(rotateWebhookSecret, input);
}

/** Re-sends every event whose deliveries failed and never succeeded (the endpoint must be active). */
export async function redriveWebhookAction(input: unknown) {
  return runAction(redriveWebhook, input);
}

/** Deletes the endpoint and its delivery log. */
export async function deleteWebhookAction(input: unknown) {
  return runAction(deleteWebhook, input);
}
