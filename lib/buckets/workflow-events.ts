import { z } from "zod";
import { defineWorkflowEvent } from "@/lib/workflows/define";

/** A stored object to scan (an upload after finalize, an inbound email attachment, a stale `pending` one). */
export const objectScanRequested = defineWorkflowEvent(
  "svc/object.scan.requested",
  z.object({ objectId: z.uuid(), orgId: z.uuid() }),
);
