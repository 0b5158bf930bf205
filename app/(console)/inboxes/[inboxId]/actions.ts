"use server";

import { z } from "zod";
import { consoleAction } from "@/lib/console/action";
import { updateInbox as updateInboxContract } from "@/lib/contracts/inboxes";
import { sendMessageBody } from "@/lib/contracts/messages";
import { deleteInbox, updateInbox } from "@/lib/inboxes/service";
import { getMessage } from "@/lib/messages/read";
import { sendMessage } from "@/lib/messages/send";

/** Changes display name, mode, agent or status (`active`/`paused`), validated like `PATCH /v1/inboxes/{id}`. */
export async function updateInboxAction(input: unknown) {
  return consoleAction("inboxes:write", updateInboxContract.body.safeExtend({ inboxId: z.uuid() }), input, async (ctx, { inboxId, ...changes }) => (await updateInbox(ctx.db, ctx.principal, inboxId, changes)).inbox);
}

/** Marks the inbox deleted: it stops sending and receiving; its messages stay readable. */
export async function deleteInboxAction(input: unknown) {
  return consoleAction("inboxes:write", z.strictObject({ inboxId: z.uuid() }), input, async (ctx, { inboxId }) => (await deleteInbox(ctx.db, ctx.principal, inboxId)).inbox);
}

/** The compose form's fields of `POST /v1/messages` (same schema, so the same field errors). */
const composeBody = sendMessageBody.pick({ inboxId: true, to: true, subject: true, text: true });

/** Sends a new message from an inbox; answers with the thread it started, for the success notice. */
export async function sendFromInboxAction(input: unknown) {
  return consoleAction("messages:send", composeBody, input, async (ctx, body) => {
    const result = await sendMessage(ctx.db, ctx.principal, body);
    if (!("id" in result)) throw new Error("a send without dryRun answered with a preview");
    const { message } = await getMessage(ctx.db, ctx.principal, result.id);
    return { id: result.id, status: result.status, error: result.error, threadId: message.threadId };
  });
}
