import { z } from "zod";
import { defineWorkflowEvent } from "./define";

/** Workflow events of the platform's own functions (housekeeping, fan-out). */
export const housekeepingRequested = defineWorkflowEvent(
  "svc/housekeeping.requested",
  z.object({ reason: z.string().max(200).optional() }),
);

export const fanoutRequested = defineWorkflowEvent("svc/fanout.requested", z.object({ fanoutId: z.uuid() }));

/** One chunk of a fan-out: the members with keys in (`after`, `last`]. */
export const fanoutChunk = defineWorkflowEvent(
  "svc/fanout.chunk",
  z.object({ fanoutId: z.uuid(), chunk: z.int().min(0), after: z.string().nullable(), last: z.string() }),
);
