import { defineDomain, operationsOf } from "@/lib/core/domain";
import { sendScheduled } from "./functions/send-scheduled-message";
import * as operations from "./operations";
import { messageCanceled, messageScheduled } from "./workflow-events";

/** Messages, threads, attachments and outbound emails. */
export default defineDomain({
  name: "messages",
  tag: "Messages",
  operations: operationsOf(operations),
  functions: [sendScheduled],
  events: [messageScheduled, messageCanceled],
});
