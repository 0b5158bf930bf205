import { z } from "zod";
import { defineWorkflowEvent } from "@/lib/workflows/define";

/** An erasure or inbox purge to run (lib/compliance/jobs.ts; the compliance-job workflow). */
export const complianceJobRequested = defineWorkflowEvent(
  "svc/compliance.job.requested",
  z.object({ jobId: z.uuid(), orgId: z.uuid() }),
);
