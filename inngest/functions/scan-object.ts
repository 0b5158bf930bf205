import { getDb } from "@/db";
import { markScanFailed, scanObject } from "@/lib/buckets/scan";
import { events, inngest } from "../client";

/**
 * Scans a stored object (an upload after finalize, an inbound email attachment) with the
 * configured scanner: `pending` → `clean` or `infected`, emitting `object.scanned`. A scanner that
 * cannot decide (down, time-out) fails the step, which is retried with backoff; after the last
 * attempt the object becomes `failed` — never `clean`.
 */
export const scanObjectFn = inngest.createFunction(
  {
    id: "scan-object",
    name: "Scan a stored object for malware",
    triggers: [events.objectScanRequested],
    concurrency: { limit: 4 },
    retries: 4,
    onFailure: async ({ event, error }) => {
      const data = (event.data as { event?: { data?: { objectId?: string } } }).event?.data;
      if (data?.objectId) await markScanFailed(await getDb(), data.objectId, error.message);
    },
  },
  async ({ event, step }) => step.run("scan", async () => scanObject(await getDb(), event.data.objectId)),
);
