import { defineDomain, operationsOf } from "@/lib/core/domain";
import { complianceJob } from "./functions/compliance-job";
import * as operations from "./operations";
import { complianceJobRequested } from "./workflow-events";

export default defineDomain({
  name: "compliance",
  tag: "Compliance",
  operations: operationsOf(operations),
  functions: [complianceJob],
  events: [complianceJobRequested],
});
