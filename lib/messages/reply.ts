import type { Db } from "@/db";
import type { Principal } from "@/lib/auth/principal";
import { invalidRequest, notFound } from "@/lib/core/errors";
import type { SendMessageInput } from "./contracts";
import { listMessages } from "./read";
import { sendMessage } from "./send";

/** `Re: ` in front of a subject, once. */
export function replySubject(subject: string): string {
  return subject === "" || /^re:/i.test(subject) ? subject : `Re: ${subject}`;
}

/**
 * Replies in a thread: from the thread's inbox to the other party of its latest message (its
 * sender when it came in, its recipients when it went out), with `replyToMessageId` so the send
 * sets In-Reply-To and References and the reply joins this thread.
 */
export async function replyInThread(
  db: Db,
  principal: Principal,
  threadId: string,
  body: Pick<SendMessageInput, "attachments" | "ignoreComplaints"> & { text: string },
) {
  const { messages } = await listMessages(db, principal, { limit: 1, threadId });
  const last = messages[0];
  if (!last) throw notFound("thread", "threadId");
  const to = last.direction === "inbound" ? [last.from.address] : last.to;
  if (to.length === 0) throw invalidRequest("The latest message has no recipient to reply to.", "threadId");
  const result = await sendMessage(db, principal, {
    inboxId: last.inboxId,
    to,
    subject: replySubject(last.subject),
    text: body.text,
    attachments: body.attachments,
    ignoreComplaints: body.ignoreComplaints,
    replyToMessageId: last.id,
  });
  if (!("id" in result)) throw new Error("a send without dryRun answered with a preview");
  return { id: result.id, status: result.status, error: result.error };
}
