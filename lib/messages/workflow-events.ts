import { z } from "zod";
import { defineWorkflowEvent } from "@/lib/workflows/define";

/** A message stored `scheduled`: the send-scheduled-message workflow sleeps until `sendAt`. */
export const messageScheduled = defineWorkflowEvent(
  "svc/message.scheduled",
  z.object({ messageId: z.uuid(), orgId: z.uuid(), sendAt: z.iso.datetime({ offset: true }) }),
);

/** A scheduled message canceled: cancels its workflow while it sleeps (`cancelOn`). */
export const messageCanceled = defineWorkflowEvent("svc/message.canceled", z.object({ messageId: z.uuid() }));
