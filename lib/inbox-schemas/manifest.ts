import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

/** Schema inboxes: an inbox's extraction contract; inbound messages get `structured` and `extractionStatus`. */
export default defineDomain({
  name: "inbox-schemas",
  tag: "Inboxes",
  operations: operationsOf(operations),
});
