"use server";

import { z } from "zod";
import { consoleAction } from "@/lib/console/action";
import { createInboxBody } from "@/lib/contracts/inboxes";
import { createInbox } from "@/lib/inboxes/service";

const LOCAL_PART_MISSING = "Give the part of the address before the @.";

/** The create form sends the address in two parts; joined, it is checked with the API's own body schema. */
const createInboxForm = z
  .strictObject({
    localPart: z.string({ error: LOCAL_PART_MISSING }).trim().min(1, LOCAL_PART_MISSING),
    domain: z.string({ error: "Pick a domain." }).trim().min(1, "Pick a domain."),
    displayName: createInboxBody.shape.displayName,
  })
  .transform(({ localPart, domain, displayName }) => ({ address: `${localPart}@${domain}`, ...(displayName === undefined ? {} : { displayName }) }))
  .pipe(createInboxBody);

/** Creates an inbox on the shared domain or a verified domain of the organization. */
export async function createInboxAction(input: unknown) {
  return consoleAction("inboxes:write", createInboxForm, input, async (ctx, body) => (await createInbox(ctx.db, ctx.principal, body)).inbox);
}
