import { defineDomain, operationsOf } from "@/lib/core/domain";
import { replayWebhook } from "./functions/replay-webhook";
import * as operations from "./operations";
import { webhookReplay } from "./workflow-events";

export default defineDomain({
  name: "webhooks",
  tag: "Webhooks",
  operations: operationsOf(operations),
  functions: [replayWebhook],
  events: [webhookReplay],
});
