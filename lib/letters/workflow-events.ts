import { z } from "zod";
import { defineWorkflowEvent } from "@/lib/workflows/define";

/** A test letter accepted by the simulated print centre: its clock starts (lib/letters/functions/simulate-letter.ts). */
export const letterSimulate = defineWorkflowEvent("svc/letter.simulate", z.object({ letterId: z.uuid() }));
