import { defineDomain, operationsOf } from "@/lib/core/domain";
import { sweepVerificationWaits } from "./functions/sweep-waits";
import * as operations from "./operations";

/**
 * Verification waits: an agent waits for the code or link of the next inbound message of an inbox
 * (any channel) from an authenticated sender; resolved in the message's transaction, expired by the
 * sweeper.
 */
export default defineDomain({
  name: "waits",
  tag: "Waits",
  operations: operationsOf(operations),
  functions: [sweepVerificationWaits],
});
