"use server";

import { z } from "zod";
import { type ActionResult, invalidInput, runAction } from "@/lib/console/action";
import { createInboxBody } from "@/lib/inboxes/contracts";
import { createInbox, deleteInbox, updateInbox } from "@/lib/inboxes/operations";
import { getMessage, sendMessage } from "@/lib/messages/operations";

const LOCAL_PART_MISSING = "Give the part of the address before the @.";

/** The create form sends the address in two parts; joined, it goes to `createInbox` (whose schema checks it). */
const createInboxForm = z.strictObject({
  localPart: z.string({ error: LOCAL_PART_MISSING }).trim().min(1, LOCAL_PART_MISSING),
  domain: z.string({ error: "Pick a domain." }).trim().min(1, "Pick a domain."),
  displayName: createInboxBody.shape.displayName,
});

/** Creates an inbox on the shared domain or a verified domain of the organization. */
export async function createInboxAction(input: unknown) {
  const { __org, ...values } = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  const form = createInboxForm.safeParse(values);
  if (!form.success) return invalidInput(form.error);
  const { localPart, domain, displayName } = form.data;
  const body = { address: `${localPart}@${domain}`, ...(displayName === undefined ? {} : { displayName }), __org };
  return runAction(createInbox, body, { then: (data) => data.inbox });
}

/** Changes display name, mode, agent or status (`active`/`paused`), as `PATCH /v1/inboxes/{id}`. */
export async function updateInboxAction(input: unknown) {
  return runAction(updateInbox, input, { then: (data) => data.inbox });
}

/** Marks the inbox deleted: it stops sending and receiving; its messages stay readable. */
export async function deleteInboxAction(input: unknown) {
  return runAction(deleteInbox, input, { then: (data) => data.inbox });
}

/** The compose form's fields of `POST /v1/messages` (the operation checks them, so the same field errors). */
const COMPOSE_FIELDS = ["inboxId", "to", "subject", "text", "ignoreComplaints"] as const;

/** Sends a new message from an inbox; answers with the thread it started, for the success notice. */
export async function sendFromInboxAction(
  input: unknown,
): Promise<ActionResult<{ id: string; status: string; error: string | null; threadId: string | null }>> {
  const values = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  const body: Record<string, unknown> = { __org: values.__org };
  for (const field of COMPOSE_FIELDS) if (values[field] !== undefined) body[field] = values[field];
  return runAction(sendMessage, body, {
    then: async (result, ctx) => {
      if (!("id" in result)) throw new Error("a send without dryRun answered with a preview");
      const { message } = await ctx.invoke(getMessage, { params: { messageId: result.id } });
      return { id: result.id, status: result.status, error: result.error, threadId: message.threadId };
    },
  });
}
