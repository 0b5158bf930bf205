import { defineDomain, operationsOf } from "@/lib/core/domain";
import { scanObjectFn } from "./functions/scan-object";
import * as operations from "./operations";
import { objectScanRequested } from "./workflow-events";

export default defineDomain({
  name: "buckets",
  tag: "Buckets",
  operations: operationsOf(operations),
  functions: [scanObjectFn],
  events: [objectScanRequested],
});
