import { z } from "zod";
import { defineWorkflowEvent } from "@/lib/workflows/define";

/** A slice of the ledger to replay to one webhook, in order (`POST /v1/events/replay`: at most 5000 events). */
export const webhookReplay = defineWorkflowEvent(
  "svc/webhook.replay",
  z.object({ webhookId: z.uuid(), eventIds: z.array(z.string().min(1)).min(1).max(5000) }),
);
