import { getDb } from "@/db";
import { env } from "@/lib/env";
import { attemptDelivery } from "@/lib/webhooks/deliver";
import { events, inngest } from "../client";

/**
 * Delivers one event to one webhook: an attempt per step on the retry schedule (Svix's by default:
 * now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), honouring `Retry-After` on 429/503. Every attempt
 * is logged; a 410 disables the endpoint; the circuit breaker may pause it in between.
 */
export const deliverWebhook = inngest.createFunction(
  {
    id: "deliver-webhook",
    name: "Deliver an event to a webhook",
    triggers: [events.webhookDeliver],
    concurrency: { limit: 10, key: "event.data.webhookId" },
    retries: 3,
  },
  async ({ event, step }) => {
    const schedule = env.WEBHOOK_RETRY_SCHEDULE;
    let retryAfter: number | null = null;
    for (let i = 0; i < schedule.length; i++) {
      const delay = retryAfter ?? schedule[i] ?? 0;
      if (delay > 0) await step.sleep(`wait-${i + 1}`, delay);
      const result = await step.run(`attempt-${i + 1}`, async () =>
        attemptDelivery(await getDb(), event.data.webhookId, event.data.eventId, i + 1, i === schedule.length - 1, event.data.replay ?? false),
      );
      if (result.final) return { status: result.status, attempts: i + 1 };
      retryAfter = result.retryAfterMs;
    }
    return { status: "failed", attempts: schedule.length };
  },
);
