"use server";

import { runAction } from "@/lib/console/action";
import { createInvitation, removeMember, revokeInvitation, updateMember } from "@/lib/organizations/operations";

/** Invites an address to the console's organization (the operation checks the role). */
export async function inviteAction(input: unknown) {
  return runAction(createInvitation, input, { then: (data) => data.invitation });
}

export async function changeRoleAction(input: unknown) {
  return runAction(updateMember, input);
}

/** Removing someone else needs owner or admin (the service checks); leaving needs only membership. */
export async function removeMemberAction(input: unknown) {
  return runAction(removeMember, input);
}

export async function revokeInvitationAction(input: unknown) {
  return runAction(revokeInvitation, input);
}
