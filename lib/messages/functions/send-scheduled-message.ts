import { getDb } from "@/db";
import { sendScheduledMessage } from "../send";
import { inngest } from "@/inngest/client";
import { messageCanceled, messageScheduled } from "../workflow-events";

/**
 * A scheduled send: sleeps until `sendAt`, then sends the stored request (re-validated when it
 * fires). Canceling the email cancels this run while it sleeps.
 */
export const sendScheduled = inngest.createFunction(
  {
    id: "send-scheduled-message",
    name: "Send a scheduled message",
    triggers: [messageScheduled.trigger],
    cancelOn: [{ event: messageCanceled.name, match: "data.messageId" }],
    retries: 5,
  },
  async ({ event, step }) => {
    await step.sleepUntil("wait-for-send-at", event.data.sendAt);
    return step.run("send", async () => sendScheduledMessage(await getDb(), event.data.messageId));
  },
);
