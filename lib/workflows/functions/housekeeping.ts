import { cron } from "inngest";
import { getDb } from "@/db";
import { purgeExpiredIdempotencyKeys } from "@/lib/core/idempotency";
import { rescanStale } from "@/lib/buckets/scan";
import { sweepStoredBytes } from "@/lib/buckets/sweep";
import { purgeOldProviderCallbacks } from "@/lib/messages/outcomes";
import { purgeExpiredRateLimits } from "@/lib/ratelimit";
import { purgeOldRequestLogs } from "@/lib/request-logs/service";
import { recoverSlackEvents } from "@/lib/slack/events";
import { purgeOldWorkflowEvents } from "@/lib/workflows/runs";
import { inngest } from "@/inngest/client";
import { housekeepingRequested } from "../workflow-events";

/**
 * Hourly housekeeping: drops Idempotency-Keys past their retention and executor events past the
 * dedupe window, rate-limit windows that have ended API request logs past `REQUEST_LOG_DAYS` and provider callback keys past 7 days, and collects stored bytes that no row owns (rolled-back writes, deleted rows, abandoned uploads);
 * objects whose scan request was lost are scanned again; stored Slack events left unprocessed without an
 * outbox entry get one.
 * Each purge is its own step, so a retry never repeats a finished one.
 */
export const housekeeping = inngest.createFunction(
  {
    id: "housekeeping",
    name: "Housekeeping",
    triggers: [cron("17 * * * *"), housekeepingRequested.trigger],
    concurrency: { limit: 1 },
    retries: 3,
  },
  async ({ step }) => {
    const idempotencyKeys = await step.run("purge-idempotency-keys", () => purgeExpiredIdempotencyKeys());
    const workflowEvents = await step.run("purge-workflow-events", () => purgeOldWorkflowEvents());
    const storage = await step.run("sweep-storage", async () => sweepStoredBytes(await getDb()));
    const rateLimits = await step.run("purge-rate-limits", async () => purgeExpiredRateLimits(await getDb()));
    const rescans = await step.run("rescan-stale-objects", async () => rescanStale(await getDb()));
    const requestLogs = await step.run("purge-request-logs", async () => purgeOldRequestLogs(await getDb()));
    const slackEvents = await step.run("recover-slack-events", async () => recoverSlackEvents(await getDb()));
    const callbackKeys = await step.run("purge-provider-callbacks", async () =>
      purgeOldProviderCallbacks(await getDb()),
    );
    return { idempotencyKeys, workflowEvents, storage, rateLimits, rescans, requestLogs, slackEvents, callbackKeys };
  },
);
