"use server";

import { cookies } from "next/headers";
import { z } from "zod";
import { passwordChangeBody, setPassword } from "@/lib/console/accounts";
import { consoleAction } from "@/lib/console/action";
import { ORG_COOKIE } from "@/lib/console/context";
import { log } from "@/lib/log";
import { deleteOrganization } from "@/lib/organizations/console";

/** Sets or changes the signed-in user's own password. */
export async function setPasswordAction(input: unknown) {
  return consoleAction("profile:write", passwordChangeBody, input, (ctx, body) => setPassword(ctx.db, ctx.user.id, body));
}

/** Deletes the current organization and everything in it (owners only; the name must be typed to confirm). */
export async function deleteOrganizationAction(input: unknown) {
  const result = await consoleAction("organization:delete", z.object({ confirm: z.string().max(200).default("") }), input, (ctx, { confirm }) =>
    deleteOrganization(ctx.db, ctx.caller, ctx.org.id, confirm).then(() => ({ actor: ctx.caller.actor, orgId: ctx.org.id })),
  );
  if (result.ok) {
    (await cookies()).delete(ORG_COOKIE);
    log.info("organization deleted", { actor: result.data.actor, orgId: result.data.orgId });
  }
  return result;
}
