import { getDb } from "@/db";
import { markScanFailed, scanObject } from "../scan";
import { inngest } from "@/inngest/client";
import { objectScanRequested } from "../workflow-events";

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
    triggers: [objectScanRequested.trigger],
    concurrency: { limit: 4 },
    retries: 4,
    onFailure: async ({ event, error }) => {
      // The failed run's event; one that never matched the schema named no object to mark.
      const original = objectScanRequested.schema.safeParse((event.data as { event?: { data?: unknown } }).event?.data);
      if (original.success) await markScanFailed(await getDb(), original.data.objectId, error.message);
    },
  },
  async ({ event, step }) => step.run("scan", async () => scanObject(await getDb(), event.data.objectId)),
);
