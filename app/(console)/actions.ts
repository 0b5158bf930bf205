"use server";

import { cookies } from "next/headers";
import { z } from "zod";
import { type ActionResult, actionError, invalidInput } from "@/lib/console/action";
import { signOut } from "@/lib/console/auth";
import { ORG_COOKIE, rememberOrganization, requireUser } from "@/lib/console/context";
import { organizationCreateBody } from "@/lib/contracts/organizations";
import { newOrganization } from "@/lib/organizations/console";
import { roleOf } from "@/lib/organizations/service";

/** Switches the organization the console works in (only to one the user belongs to). */
export async function switchOrganization(orgId: string): Promise<ActionResult> {
  try {
    const { db, user } = await requireUser();
    const parsed = z.uuid().safeParse(orgId);
    const id = parsed.success ? parsed.data : null;
    if (!id || !(await roleOf(db, id, user.id))) return { ok: false, error: { code: "resource_not_found", message: "No such organization.", param: "orgId", fields: {} } };
    await rememberOrganization(id);
    return { ok: true, data: null };
  } catch (err) {
    return actionError(err);
  }
}

/** Creates an organization with the user as owner and switches to it. */
export async function createOrganizationAction(input: unknown): Promise<ActionResult<{ id: string }>> {
  try {
    const { db, user } = await requireUser();
    const parsed = organizationCreateBody.safeParse(input);
    if (!parsed.success) return invalidInput(parsed.error);
    const { organization } = await newOrganization(db, { userId: user.id, email: user.email, actor: `user:${user.id}`, ip: null }, parsed.data);
    await rememberOrganization(organization.id);
    return { ok: true, data: { id: organization.id } };
  } catch (err) {
    return actionError(err);
  }
}

export async function signOutAction(): Promise<void> {
  (await cookies()).delete(ORG_COOKIE);
  await signOut({ redirectTo: "/sign-in" });
}
