"use server";

import { cookies } from "next/headers";
import { setPassword } from "@/lib/account/operations";
import { runAction } from "@/lib/console/action";
import { ORG_COOKIE } from "@/lib/console/context";
import { deleteOrganization, renameOrganization } from "@/lib/organizations/operations";

/** Sets or changes the signed-in user's own password. */
export async function setPasswordAction(input: unknown) {
  return runAction(setPassword, input);
}

/** Deletes the current organization and everything in it (owners only; the name must be typed to confirm). */
export async function deleteOrganizationAction(input: unknown) {
  return runAction(deleteOrganization, input, {
    then: async (data) => {
      (await cookies()).delete(ORG_COOKIE);
      return data;
    },
  });
}

/** Renames the current organization (owners and admins). */
export async function renameOrganizationAction(input: unknown) {
  return runAction(renameOrganization, input, { labels: { name: "organization name" } });
}
