import { cron } from "inngest";
import { getDb } from "@/db";
import { purgeExpiredIdempotencyKeys } from "@/lib/core/idempotency";
import { rescanStale } from "@/lib/buckets/scan";
import { sweepStoredBytes } from "@/lib/buckets/sweep";
import { purgeExpiredRateLimits } from "@/lib/ratelimit";
import { purgeOldWorkflowEvents } from "@/lib/workflows/runs";
import { inngest } from "@/inngest/client";
import { housekeepingRequested } from "../workflow-events";

/**
 * Hourly housekeeping: drops Idempotency-Keys past their retention and executor events past the
 * dedupe window and rate-limit windows that have ended, and collects stored bytes that no row owns (rolled-back writes, deleted rows, abandoned uploads);
 * objects whose scan request was lost are scanned again.
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
    return { idempotencyKeys, workflowEvents, storage, rateLimits, rescans };
  },
);
