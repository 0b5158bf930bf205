import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { getDb, type Db } from "@/db";
import type { Principal } from "@/lib/auth/principal";
import type { ConsoleCaller } from "@/lib/organizations/console";
import { listOrganizationsForUser, type OrganizationSummary } from "@/lib/organizations/service";
import { readClientIp } from "@/lib/api/client-ip";
import { type ConsoleUser, getUser } from "./accounts";
import { auth } from "./auth";
import { ORG_COOKIE } from "./session-token";
import { can, consolePrincipal, type Permission } from "./roles";
import type { Role } from "@/db/schema";

export { ORG_COOKIE };

export interface ConsoleContext {
  db: Db;
  user: ConsoleUser;
  organizations: OrganizationSummary[];
  org: OrganizationSummary;
  role: Role;
  /** The user acting in `org`, with the scopes of their role: what services take. */
  principal: Principal;
  can: (permission: Permission) => boolean;
  /** The user as organization operations take them. */
  caller: ConsoleCaller;
}

/** The signed-in user, or a redirect to sign-in. Pages without an organization use this. */
export const requireUser = cache(async (): Promise<{ db: Db; user: ConsoleUser }> => {
  const session = await auth();
  const userId = session?.user?.id;
  if (!userId) redirect("/sign-in");
  const db = await getDb();
  const user = await getUser(db, userId);
  if (!user) redirect("/sign-in");
  return { db, user };
});

/**
 * Everything a console page or action needs, resolved once per request: the session's user, their
 * organizations and the current one (the `svc_org` cookie when it names one of theirs, else the
 * first), and the principal services check. No organization yet → onboarding.
 */
export const getConsole = cache(async (): Promise<ConsoleContext> => {
  const { db, user } = await requireUser();
  const organizations = await listOrganizationsForUser(db, user.id);
  const wanted = (await cookies()).get(ORG_COOKIE)?.value;
  const org = organizations.find((o) => o.id === wanted) ?? organizations[0];
  if (!org) redirect("/onboarding");
  const ip = readClientIp(await headers());
  return {
    db,
    user,
    organizations,
    org,
    role: org.role,
    principal: consolePrincipal({ orgId: org.id, userId: user.id, role: org.role, ip }),
    can: (permission) => can(org.role, permission),
    caller: { userId: user.id, email: user.email, actor: `user:${user.id}`, ip },
  };
});

/** Makes `orgId` the organization the console works in (the caller has checked membership). */
export async function rememberOrganization(orgId: string): Promise<void> {
  (await cookies()).set(ORG_COOKIE, orgId, { httpOnly: true, sameSite: "lax", path: "/", maxAge: 365 * 24 * 3600 });
}
