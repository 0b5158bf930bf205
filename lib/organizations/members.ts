import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { memberships, organizations, type Role, users } from "@/db/schema";
import { notFound, notPermitted } from "@/lib/core/errors";
import type { AuditActor } from "@/lib/core/audit";
import { can } from "@/lib/auth/roles";
import { changeMemberRole, removeMember, roleOf } from "./service";

export interface Member {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  createdAt: string;
}

const memberColumns = {
  userId: users.id,
  email: users.email,
  name: users.name,
  role: memberships.role,
  createdAt: memberships.createdAt,
};
const toMember = (r: { userId: string; email: string; name: string | null; role: Role; createdAt: Date }): Member => ({
  ...r,
  createdAt: r.createdAt.toISOString(),
});

/** The acting user: who they are and their role in the organization being changed. */
export interface Actor {
  userId: string;
  role: Role;
  audit: AuditActor;
}

/** The caller's role in `orgId`; 404 when they are not a member (an organization they cannot see). */
export async function requireMembership(db: DbOrTx, orgId: string, userId: string): Promise<Role> {
  const role = await roleOf(db, orgId, userId);
  if (!role) throw notFound("organization", "orgId");
  return role;
}

export function requirePermission(role: Role, permission: Parameters<typeof can>[1], message: string): void {
  if (!can(role, permission)) throw notPermitted(message);
}

export async function listMembers(db: DbOrTx, orgId: string): Promise<Member[]> {
  const rows = await db
    .select(memberColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.orgId, orgId))
    .orderBy(asc(memberships.createdAt), asc(users.id));
  return rows.map(toMember);
}

async function memberOrThrow(db: DbOrTx, orgId: string, userId: string): Promise<Member> {
  const [row] = await db
    .select(memberColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)));
  if (!row) throw notFound("member", "userId");
  return toMember(row);
}

/**
 * Changes a member's role on behalf of `actor`: admins and owners manage members; only an owner
 * grants or takes away `owner`; the last owner cannot be demoted (enforced under a row lock).
 */
export async function setMemberRole(
  db: DbOrTx,
  orgId: string,
  actor: Actor,
  userId: string,
  role: Role,
): Promise<Member> {
  requirePermission(actor.role, "members:manage", "Only owners and admins can change roles.");
  return db.transaction(async (tx) => {
    const target = await memberOrThrow(tx, orgId, userId);
    if ((target.role === "owner" || role === "owner") && !can(actor.role, "owners:manage")) {
      throw notPermitted("Only an owner can grant or remove the owner role.", "role");
    }
    await changeMemberRole(tx, orgId, userId, role, actor.audit);
    return { ...target, role };
  });
}

/** Removes a member on behalf of `actor`; only an owner removes an owner; never the last owner. */
export async function deleteMember(db: DbOrTx, orgId: string, actor: Actor, userId: string): Promise<void> {
  if (userId !== actor.userId)
    requirePermission(actor.role, "members:manage", "Only owners and admins can remove members.");
  await db.transaction(async (tx) => {
    const target = await memberOrThrow(tx, orgId, userId);
    if (target.role === "owner" && userId !== actor.userId && !can(actor.role, "owners:manage")) {
      throw notPermitted("Only an owner can remove an owner.", "userId");
    }
    await removeMember(tx, orgId, userId, actor.audit);
  });
}

export async function organizationName(db: DbOrTx, orgId: string): Promise<string> {
  const [row] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId));
  if (!row) throw notFound("organization", "orgId");
  return row.name;
}
