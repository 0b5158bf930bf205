"use server";

import { z } from "zod";
import { invalidRequest } from "@/lib/api/errors";
import { consoleAction } from "@/lib/console/action";
import { sendMessageBody } from "@/lib/contracts/messages";
import { listMessages } from "@/lib/messages/read";
import { sendMessage } from "@/lib/messages/send";

const replyBody = z.strictObject({
  threadId: z.uuid(),
  text: sendMessageBody.shape.text.unwrap().trim().min(1, "Write a reply first."),
});

/** `Re: ` in front of a subject, once. */
function replySubject(subject: string): string {
  return subject === "" || /^re:/i.test(subject) ? subject : `Re: ${subject}`;
}

/**
 * Replies in a thread: from the thread's inbox to the other party of its latest message (its
 * sender when it came in, its recipients when it went out), with `replyToMessageId` so the send
 * sets In-Reply-To and References and the reply joins this thread.
 */
export async function replyAction(input: unknown) {
  return consoleAction("messages:send", replyBody, input, async (ctx, { threadId, text }) => {
    const { messages } = await listMessages(ctx.db, ctx.principal, { limit: 1, threadId });
    const last = messages[0];
    if (!last) throw invalidRequest("This thread has no message to reply to.", "threadId");
    const to = last.direction === "inbound" ? [last.from.address] : last.to;
    if (to.length === 0) throw invalidRequest("The latest message has no recipient to reply to.", "threadId");
    const result = await sendMessage(ctx.db, ctx.principal, { inboxId: last.inboxId, to, subject: replySubject(last.subject), text, replyToMessageId: last.id });
    if (!("id" in result)) throw new Error("a send without dryRun answered with a preview");
    return { id: result.id, status: result.status, error: result.error };
  });
}
