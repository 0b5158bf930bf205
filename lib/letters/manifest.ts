import { defineDomain, operationsOf } from "@/lib/core/domain";
import { simulateLetter } from "./functions/simulate-letter";
import { sweepLetters } from "./functions/sweep-letters";
import * as operations from "./operations";
import { letterSimulate } from "./workflow-events";

/**
 * Letters: physical mail (requirements, verification measured from the PDF, price, send, read,
 * events, cancel, test-mode progress) over the print provider port (lib/providers/print); the
 * simulated print centre's clock is the `simulate-letter` workflow plus the `sweep-letters` cron.
 */
export default defineDomain({
  name: "letters",
  tag: "Letters",
  operations: operationsOf(operations),
  functions: [simulateLetter, sweepLetters],
  events: [letterSimulate],
});
