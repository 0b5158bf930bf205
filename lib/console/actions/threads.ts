"use server";

import { runAction } from "@/lib/console/action";
import { replyInThread } from "@/lib/messages/operations";

/** Replies in a thread (see the `replyInThread` operation: from the thread's inbox to the other party). */
export async function replyAction(input: unknown) {
  return runAction(replyInThread, input);
}
