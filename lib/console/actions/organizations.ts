"use server";

import { cookies } from "next/headers";
import { z } from "zod";
import { type ActionResult, actionError, runAction } from "@/lib/console/action";
import { signOut } from "@/lib/console/auth";
import { ORG_COOKIE, rememberOrganization, requireUser } from "@/lib/console/context";
import { acceptInvitation, createOrganization, listOrganizations } from "@/lib/organizations/operations";

/** Switches the organization the console works in (only to one the user belongs to). */
export async function switchOrganization(orgId: string): Promise<ActionResult> {
  try {
    const { invoke } = await requireUser();
    const parsed = z.uuid().safeParse(orgId);
    const { organizations } = await invoke(listOrganizations);
    const id = parsed.success ? organizations.find((o) => o.id === parsed.data)?.id : undefined;
    if (!id)
      return {
        ok: false,
        error: { code: "resource_not_found", message: "No such organization.", param: "orgId", fields: {} },
      };
    await rememberOrganization(id);
    return { ok: true, data: null };
  } catch (err) {
    return actionError(err);
  }
}

/** Creates an organization with the user as owner and switches to it. */
export async function createOrganizationAction(input: unknown): Promise<ActionResult<{ id: string }>> {
  return runAction(createOrganization, input, {
    withoutOrganization: true,
    labels: { name: "organization name" },
    then: async ({ organization }) => {
      if (!organization.id) throw new Error("a new organization without an id");
      await rememberOrganization(organization.id);
      return { id: organization.id };
    },
  });
}

/** Accepts the invitation as the signed-in user and switches the console to its organization. */
export async function acceptInvitationAction(token: string): Promise<ActionResult<{ orgId: string }>> {
  return runAction(
    acceptInvitation,
    { token: String(token) },
    {
      withoutOrganization: true,
      then: async (data) => {
        await rememberOrganization(data.orgId);
        return data;
      },
    },
  );
}

export async function signOutAction(): Promise<void> {
  (await cookies()).delete(ORG_COOKIE);
  await signOut({ redirectTo: "/sign-in" });
}
