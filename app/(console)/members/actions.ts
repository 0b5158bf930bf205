"use server";

import { z } from "zod";
import { consoleAction } from "@/lib/console/action";
import { invitationCreateBody, memberUpdateBody } from "@/lib/contracts/organizations";
import { changeRole, inviteMember, removeFromOrganization, withdrawInvitation } from "@/lib/organizations/console";

export async function inviteAction(input: unknown) {
  return consoleAction("members:manage", invitationCreateBody, input, async (ctx, body) => (await inviteMember(ctx.db, ctx.caller, ctx.org.id, body)).invitation);
}

export async function changeRoleAction(input: unknown) {
  return consoleAction("members:manage", memberUpdateBody.extend({ userId: z.uuid() }), input, (ctx, { userId, role }) => changeRole(ctx.db, ctx.caller, ctx.org.id, userId, role));
}

/** Removing someone else needs members:manage (the service checks); leaving needs only membership. */
export async function removeMemberAction(input: unknown) {
  return consoleAction("messages:read", z.object({ userId: z.uuid() }), input, (ctx, { userId }) => removeFromOrganization(ctx.db, ctx.caller, ctx.org.id, userId));
}

export async function revokeInvitationAction(input: unknown) {
  return consoleAction("members:manage", z.object({ invitationId: z.uuid() }), input, (ctx, { invitationId }) => withdrawInvitation(ctx.db, ctx.caller, ctx.org.id, invitationId));
}
