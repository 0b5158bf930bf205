import { getDb } from "@/db";
// Registers the `broadcast` fan-out kind (its source and sink) with the primitive.
import "@/lib/audiences/broadcast-fanout";
import { applyChunk, type ChunkPlan, finishPlanning, PLAN_WINDOW, planAndSend } from "@/lib/workflows/fanout";
import { inngest } from "@/inngest/client";
import { fanoutChunk as chunkEvent, fanoutRequested } from "../workflow-events";

/**
 * The fan-out orchestrator: plans the chunks a window at a time and sends one event per chunk with
 * a deterministic id (one memoized step per window), so a resumed run sends nothing twice.
 */
export const fanoutOrchestrate = inngest.createFunction(
  {
    id: "fanout-orchestrate",
    name: "Plan a fan-out's chunks",
    triggers: [fanoutRequested.trigger],
    concurrency: { limit: 1, key: "event.data.fanoutId" },
  },
  async ({ event, step }) => {
    const fanoutId = event.data.fanoutId;
    let from = 0;
    let after: string | null = null;
    for (let w = 0; ; w++) {
      // Planning and sending are one step: the chunk events' ids are deterministic, so a step
      // retried after sending some of them re-sends nothing new.
      const plans: ChunkPlan[] = await step.run(`plan-${w}`, async () =>
        planAndSend(await getDb(), fanoutId, from, after),
      );
      if (plans.length === 0) break;
      from += plans.length;
      after = plans.at(-1)?.last ?? after;
      if (plans.length < PLAN_WINDOW) break;
    }
    const chunks = from;
    await step.run("planned", async () => finishPlanning(await getDb(), fanoutId, chunks));
    return { chunks };
  },
);

/** A chunk worker: applies one chunk exactly once (its `fanout_chunks` row is the proof). */
export const fanoutChunk = inngest.createFunction(
  { id: "fanout-chunk", name: "Apply a fan-out chunk", triggers: [chunkEvent.trigger], concurrency: { limit: 4 } },
  async ({ event, step }) => {
    const { fanoutId, chunk, after, last } = event.data;
    const rows = await step.run("apply", async () => applyChunk(await getDb(), fanoutId, { chunk, after, last }));
    return { chunk, rows };
  },
);
