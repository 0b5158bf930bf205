import { and, asc, eq, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { domains, memberships, organizations, type Role, users } from "@/db/schema";
import { notFound, notPermitted } from "@/lib/core/errors";
import { type AuditActor, noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { env } from "@/lib/env";

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** The user with this email, created when missing. */
export async function findOrCreateUser(
  tx: DbOrTx,
  email: string,
): Promise<{ id: string; email: string; created: boolean }> {
  const normalized = normalizeEmail(email);
  const inserted = await tx
    .insert(users)
    .values({ email: normalized })
    .onConflictDoNothing()
    .returning({ id: users.id });
  if (inserted[0]) return { id: inserted[0].id, email: normalized, created: true };
  const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.email, normalized));
  if (!existing) throw new Error("user vanished during findOrCreateUser");
  return { id: existing.id, email: normalized, created: false };
}

function slugify(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return base || "org";
}

export interface OrganizationSummary {
  id: string;
  name: string;
  slug: string;
  vanitySlug: string | null;
  role: Role;
}

/**
 * Creates an organization with `ownerUserId` as its owner, and the organization's read-only record
 * of the shared domain. Audited as `organization.created`.
 */
export async function createOrganization(
  tx: DbOrTx,
  input: { name: string; ownerUserId: string },
  who: AuditActor,
): Promise<OrganizationSummary> {
  const base = slugify(input.name);
  let org: typeof organizations.$inferSelect | undefined;
  for (let attempt = 0; !org; attempt++) {
    const slug = attempt === 0 ? base : `${base}-${Math.random().toString(36).slice(2, 8)}`;
    [org] = await tx.insert(organizations).values({ name: input.name, slug }).onConflictDoNothing().returning();
    if (attempt > 10) throw new Error("could not allocate an organization slug");
  }
  await tx.insert(memberships).values({ orgId: org.id, userId: input.ownerUserId, role: "owner" });
  await tx
    .insert(domains)
    .values({ orgId: org.id, name: env.SHARED_DOMAIN, status: "verified", isShared: true, verifiedAt: org.createdAt });
  await recordAudit(tx, who, {
    orgId: org.id,
    action: "organization.created",
    resourceType: "organization",
    resourceId: org.id,
    metadata: { name: org.name, slug: org.slug, ownerUserId: input.ownerUserId },
  });
  return { id: org.id, name: org.name, slug: org.slug, vanitySlug: org.vanitySlug, role: "owner" };
}

/** The user's organizations with their role, oldest membership first. */
/**
 * The user's organizations as one JSON array (`listOrganizationsForUser`'s rows, in its order), a
 * scalar subquery to select beside other figures in one statement (whoami). Read it with
 * `organizationsFromJson`.
 */
export function organizationsOfUserJson(userId: string): SQL<unknown> {
  // Table aliases: drizzle writes columns unqualified inside `sql`, and both tables have `id`.
  return sql`(select coalesce(json_agg(json_build_object('id', o.id, 'name', o.name, 'slug', o.slug, 'vanitySlug', o.vanity_slug, 'role', m.role) order by m.created_at, o.id), '[]'::json) from memberships m inner join organizations o on o.id = m.org_id where m.user_id = ${userId})`;
}

/** The value of `organizationsOfUserJson` (drivers hand JSON over parsed or as text). */
export function organizationsFromJson(value: unknown): OrganizationSummary[] {
  return (typeof value === "string" ? JSON.parse(value) : (value ?? [])) as OrganizationSummary[];
}

export async function listOrganizationsForUser(db: DbOrTx, userId: string): Promise<OrganizationSummary[]> {
  return db
    .select({
      id: organizations.id,
      name: organizations.name,
      slug: organizations.slug,
      vanitySlug: organizations.vanitySlug,
      role: memberships.role,
    })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(organizations.id));
}

export async function roleOf(db: DbOrTx, orgId: string, userId: string): Promise<Role | null> {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)));
  return row?.role ?? null;
}

/** Adds `userId` to the organization (an accepted invitation); an existing member keeps their role. */
export async function addMember(tx: DbOrTx, orgId: string, userId: string, role: Role, who: AuditActor): Promise<void> {
  const added = await tx.insert(memberships).values({ orgId, userId, role }).onConflictDoNothing().returning();
  if (added.length > 0) {
    await recordAudit(tx, who, {
      orgId,
      action: "member.added",
      resourceType: "user",
      resourceId: userId,
      metadata: { role },
    });
  }
}

/** Locks the organization's owner rows so owner counts cannot race (the last-owner rule). */
async function lockedOwnerCount(tx: DbOrTx, orgId: string): Promise<number> {
  const owners = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), eq(memberships.role, "owner")))
    .for("update");
  return owners.length;
}

/** Changes a member's role. The last owner cannot be demoted. Run inside a transaction. */
export async function changeMemberRole(
  tx: DbOrTx,
  orgId: string,
  userId: string,
  role: Role,
  who: AuditActor,
): Promise<void> {
  const current = await roleOf(tx, orgId, userId);
  if (!current) throw notFound("member", "userId");
  if (current === role) {
    noAuditNeeded("the member already has this role");
    return;
  }
  if (current === "owner" && (await lockedOwnerCount(tx, orgId)) <= 1) {
    throw notPermitted("The last owner of an organization cannot be demoted; make another member owner first.", "role");
  }
  await tx
    .update(memberships)
    .set({ role })
    .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)));
  await recordAudit(tx, who, {
    orgId,
    action: "member.role_changed",
    resourceType: "user",
    resourceId: userId,
    metadata: { from: current, to: role },
  });
}

/** Removes a member. The last owner cannot be removed. Run inside a transaction. */
export async function removeMember(tx: DbOrTx, orgId: string, userId: string, who: AuditActor): Promise<void> {
  const current = await roleOf(tx, orgId, userId);
  if (!current) throw notFound("member", "userId");
  if (current === "owner" && (await lockedOwnerCount(tx, orgId)) <= 1) {
    throw notPermitted("The last owner of an organization cannot be removed.", "userId");
  }
  await tx.delete(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)));
  await recordAudit(tx, who, {
    orgId,
    action: "member.removed",
    resourceType: "user",
    resourceId: userId,
    metadata: { role: current },
  });
}
