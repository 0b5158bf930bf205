import type { Role } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { type Scope, SCOPES } from "@/lib/auth/scopes";

/**
 * What each organization role may do in the console, in the API's own vocabulary (scopes), plus two
 * console-only permissions. `member` reads (except API keys) and sends; `admin` also manages keys,
 * domains, inboxes, webhooks and members; `owner` also deletes the organization and grants `owner`.
 * This file is the only place that decides it; every page and action asks `can`.
 */
export type Permission = Scope | "profile:write" | "members:manage" | "owners:manage" | "organization:delete";

const MEMBER: ReadonlySet<Permission> = new Set<Permission>([
  ...SCOPES.filter((s) => s.endsWith(":read") && s !== "keys:read"),
  "messages:send",
  "profile:write",
]);
const ADMIN: ReadonlySet<Permission> = new Set<Permission>([...SCOPES, "profile:write", "members:manage"]);
const OWNER: ReadonlySet<Permission> = new Set<Permission>([...ADMIN, "owners:manage", "organization:delete"]);

const BY_ROLE: Record<Role, ReadonlySet<Permission>> = { member: MEMBER, admin: ADMIN, owner: OWNER };

export function can(role: Role, permission: Permission): boolean {
  return BY_ROLE[role].has(permission);
}

/** The scopes a role amounts to, for services that take a Principal. */
export function roleScopes(role: Role): ReadonlySet<Scope> {
  return new Set(SCOPES.filter((s) => BY_ROLE[role].has(s)));
}

/** A console user acting in an organization, as services see it (no API key). */
export function consolePrincipal(input: { orgId: string; userId: string; role: Role; ip?: string | null }): Principal {
  return {
    orgId: input.orgId,
    userId: input.userId,
    apiKeyId: null,
    scopes: roleScopes(input.role),
    inboxIds: null,
    actor: `user:${input.userId}`,
    ip: input.ip ?? null,
    requestId: null,
  };
}

export const ROLE_LABELS: Record<Role, string> = { owner: "Owner", admin: "Admin", member: "Member" };
