import { getDb } from "@/db";
import { deliverInOrder } from "../deliver";
import { inngest } from "@/inngest/client";
import { webhookReplay } from "../workflow-events";

const BATCH = 50;

/**
 * Replays a slice of the ledger to one webhook in `(partitionKey, seq)` order: one run per webhook
 * (one at a time per webhook), batches of events as steps, each event delivered before the next.
 */
export const replayWebhook = inngest.createFunction(
  {
    id: "replay-webhook",
    name: "Replay events to a webhook",
    triggers: [webhookReplay.trigger],
    concurrency: { limit: 1, key: "event.data.webhookId" },
    retries: 3,
  },
  async ({ event, step }) => {
    const ids = event.data.eventIds;
    let delivered = 0;
    let failed = 0;
    for (let i = 0; i < ids.length; i += BATCH) {
      const r = await step.run(`batch-${i / BATCH + 1}`, async () =>
        deliverInOrder(await getDb(), event.data.webhookId, ids.slice(i, i + BATCH)),
      );
      delivered += r.delivered;
      failed += r.failed;
    }
    return { delivered, failed };
  },
);
