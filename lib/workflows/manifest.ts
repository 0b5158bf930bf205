import { defineDomain } from "@/lib/core/domain";
import { fanoutChunk as chunkFn, fanoutOrchestrate } from "./functions/fanout";
import { housekeeping } from "./functions/housekeeping";
import { fanoutChunk, fanoutRequested, housekeepingRequested } from "./workflow-events";

/**
 * The platform's own workflows: hourly housekeeping (purges, the storage sweep, stale scans) and
 * the fan-out engine (orchestrator and chunk workers) that broadcasts and batches run on. No
 * operations: operators read runs through the console (`lib/workflows/runs.ts`).
 */
export default defineDomain({
  name: "workflows",
  tag: "Workflows",
  operations: [],
  functions: [housekeeping, fanoutOrchestrate, chunkFn],
  events: [housekeepingRequested, fanoutRequested, fanoutChunk],
});
