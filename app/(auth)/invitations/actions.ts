"use server";

import { type ActionResult, actionError } from "@/lib/console/action";
import { rememberOrganization, requireUser } from "@/lib/console/context";
import { acceptInvitation } from "@/lib/organizations/invitations";

/** Accepts the invitation as the signed-in user and switches the console to its organization. */
export async function acceptInvitationAction(token: string): Promise<ActionResult<{ orgId: string }>> {
  try {
    const { db, user } = await requireUser();
    const { orgId } = await acceptInvitation(db, String(token), user);
    await rememberOrganization(orgId);
    return { ok: true, data: { orgId } };
  } catch (err) {
    return actionError(err);
  }
}
