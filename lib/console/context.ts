import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { getDb } from "@/db";
import type { Role } from "@/db/schema";
import { type ConsoleUser, getUser, isFreshInstall } from "@/lib/account/users";
import type { Principal } from "@/lib/auth/principal";
import { can, consolePrincipal, type Permission } from "@/lib/auth/roles";
import type { Actor, SessionCaller } from "@/lib/core/actor";
import { invoke } from "@/lib/core/invoke";
import type { AnyOperation, OperationInput, OperationOutput } from "@/lib/core/operation";
import { readClientIp } from "@/lib/http/client-ip";
import { listOrganizationsForUser, type OrganizationSummary } from "@/lib/organizations/service";
import { auth } from "./auth";
import { ORG_COOKIE } from "./session-token";

export { ORG_COOKIE };

export type UserActor = Extract<Actor, { type: "user" }>;

/** Runs an operation as the console user (the same `invoke` the API takes) and returns its data. */
export type ConsoleInvoke = <O extends AnyOperation>(op: O, input?: OperationInput<O>) => Promise<OperationOutput<O>>;

export interface ConsoleContext {
  user: ConsoleUser;
  organizations: OrganizationSummary[];
  org: OrganizationSummary;
  role: Role;
  /** The user acting in `org`, with the scopes of their role. */
  actor: UserActor;
  /** The actor's principal (what services see). */
  principal: Principal;
  can: (permission: Permission) => boolean;
  /** The user as organization operations take them. */
  caller: SessionCaller;
  /** Invoke an operation as this user in this organization. */
  invoke: ConsoleInvoke;
}

export interface SignedInUser {
  user: ConsoleUser;
  /** The user without an organization (session operations: create or accept an organization, password). */
  actor: UserActor;
  invoke: ConsoleInvoke;
}

const bind =
  (actor: Actor): ConsoleInvoke =>
  async (op, input) =>
    (await invoke(op, actor, input ?? {})).data;

/** The signed-in user, or a redirect to sign-in (sign-up on a fresh install). Pages without an organization use this. */
export const requireUser = cache(async (): Promise<SignedInUser> => {
  const session = await auth();
  const userId = session?.user?.id;
  // A fresh install has no account to sign in to: its first visitor creates one.
  if (!userId) redirect((await isFreshInstall(await getDb())) ? "/sign-up" : "/sign-in");
  const user = await getUser(await getDb(), userId);
  if (!user) redirect("/sign-in");
  const ip = readClientIp(await headers());
  const actor: UserActor = { type: "user", userId: user.id, email: user.email, org: null, principal: null, ip };
  return { user, actor, invoke: bind(actor) };
});

/**
 * Everything a console page or action needs, resolved once per request: the session's user, their
 * organizations and the current one (the `svc_org` cookie when it names one of theirs, else the
 * first), and the actor operations run as. No organization yet → onboarding.
 */
export const getConsole = cache(async (): Promise<ConsoleContext> => {
  const { user, actor: bare } = await requireUser();
  const organizations = await listOrganizationsForUser(await getDb(), user.id);
  const wanted = (await cookies()).get(ORG_COOKIE)?.value;
  const org = organizations.find((o) => o.id === wanted) ?? organizations[0];
  if (!org) redirect("/onboarding");
  const principal = consolePrincipal({ orgId: org.id, userId: user.id, role: org.role, ip: bare.ip });
  const actor: UserActor = { ...bare, org: { id: org.id, role: org.role }, principal };
  return {
    user,
    organizations,
    org,
    role: org.role,
    actor,
    principal,
    can: (permission) => can(org.role, permission),
    caller: { userId: user.id, email: user.email, actor: `user:${user.id}`, ip: bare.ip },
    invoke: bind(actor),
  };
});

/**
 * The console context when the visitor is signed in with an organization, else null (no redirect):
 * public pages (the API reference) show the console's frame to signed-in users only.
 */
export async function consoleIfSignedIn(): Promise<ConsoleContext | null> {
  const session = await auth();
  const userId = session?.user?.id;
  if (!userId) return null;
  const db = await getDb();
  if (!(await getUser(db, userId)) || (await listOrganizationsForUser(db, userId)).length === 0) return null;
  return getConsole();
}

/** Makes `orgId` the organization the console works in (the caller has checked membership). */
export async function rememberOrganization(orgId: string): Promise<void> {
  (await cookies()).set(ORG_COOKIE, orgId, { httpOnly: true, sameSite: "lax", path: "/", maxAge: 365 * 24 * 3600 });
}
