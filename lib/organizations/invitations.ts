import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, gt, isNull } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { invitations, memberships, organizations, type Role, users } from "@/db/schema";
import { ApiError, notFound, notPermitted } from "@/lib/core/errors";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { can } from "@/lib/auth/roles";
import { type Actor, requirePermission } from "./members";
import { addMember, normalizeEmail } from "./service";

export const INVITATION_TTL_DAYS = 7;

export type InvitationStatus = "pending" | "accepted" | "expired" | "revoked";

export interface Invitation {
  id: string;
  orgId: string;
  email: string;
  role: Role;
  status: InvitationStatus;
  expiresAt: string;
  createdAt: string;
}

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

function statusOf(row: typeof invitations.$inferSelect, now = new Date()): InvitationStatus {
  if (row.acceptedAt) return "accepted";
  if (row.revokedAt) return "revoked";
  return row.expiresAt <= now ? "expired" : "pending";
}

const toInvitation = (row: typeof invitations.$inferSelect): Invitation => ({
  id: row.id,
  orgId: row.orgId,
  email: row.email,
  role: row.role,
  status: statusOf(row),
  expiresAt: row.expiresAt.toISOString(),
  createdAt: row.createdAt.toISOString(),
});

/**
 * Creates an invitation and returns it with its one-time token (only its hash is stored). The
 * caller emails the accept link after the transaction commits. Inviting an address again revokes
 * its earlier pending invitation; inviting an existing member is a 409.
 */
export async function createInvitation(
  db: DbOrTx,
  orgId: string,
  actor: Actor,
  input: { email: string; role: Role },
): Promise<{ invitation: Invitation; token: string }> {
  requirePermission(actor.role, "members:manage", "Only owners and admins can invite members.");
  if (input.role === "owner" && !can(actor.role, "owners:manage"))
    throw notPermitted("Only an owner can invite an owner.", "role");
  const email = normalizeEmail(input.email);
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ userId: users.id })
      .from(users)
      .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.orgId, orgId)))
      .where(eq(users.email, email));
    if (existing) throw new ApiError("conflict", `${email} is already a member of this organization.`, "email");
    const now = new Date();
    await tx
      .update(invitations)
      .set({ revokedAt: now })
      .where(
        and(
          eq(invitations.orgId, orgId),
          eq(invitations.email, email),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
        ),
      );
    const token = randomBytes(32).toString("base64url");
    const [row] = await tx
      .insert(invitations)
      .values({
        orgId,
        email,
        role: input.role,
        tokenHash: hashToken(token),
        invitedBy: actor.userId,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_DAYS * 86_400_000),
      })
      .returning();
    if (!row) throw new Error("invitation insert returned nothing");
    await recordAudit(tx, actor.audit, {
      orgId,
      action: "member.invited",
      resourceType: "invitation",
      resourceId: row.id,
      metadata: { email, role: input.role },
    });
    return { invitation: toInvitation(row), token };
  });
}

/** Pending invitations of an organization, newest first. */
export async function listPendingInvitations(db: DbOrTx, orgId: string): Promise<Invitation[]> {
  const rows = await db
    .select()
    .from(invitations)
    .where(
      and(
        eq(invitations.orgId, orgId),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, new Date()),
      ),
    )
    .orderBy(desc(invitations.createdAt));
  return rows.map(toInvitation);
}

export async function revokeInvitation(db: DbOrTx, orgId: string, actor: Actor, invitationId: string): Promise<void> {
  requirePermission(actor.role, "members:manage", "Only owners and admins can revoke invitations.");
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(invitations)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(invitations.id, invitationId),
          eq(invitations.orgId, orgId),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
        ),
      )
      .returning();
    if (!row) throw notFound("invitation", "invitationId");
    await recordAudit(tx, actor.audit, {
      orgId,
      action: "member.invitation_revoked",
      resourceType: "invitation",
      resourceId: row.id,
      metadata: { email: row.email },
    });
  });
}

/** What the accept page shows about a token, without consuming it. */
export async function describeInvitation(
  db: DbOrTx,
  token: string,
): Promise<(Invitation & { organization: string; invitedBy: string | null }) | null> {
  const [row] = await db
    .select({ inv: invitations, organization: organizations.name, invitedBy: users.email })
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.orgId))
    .leftJoin(users, eq(users.id, invitations.invitedBy))
    .where(eq(invitations.tokenHash, hashToken(token)));
  return row ? { ...toInvitation(row.inv), organization: row.organization, invitedBy: row.invitedBy } : null;
}

/**
 * Accepts an invitation as the signed-in user, who must own the invited address. Adds the
 * membership (an existing member keeps their role) and marks the address verified. Exactly once
 * under concurrent clicks: the invitation row is locked.
 */
export async function acceptInvitation(
  db: DbOrTx,
  token: string,
  user: { id: string; email: string },
): Promise<{ orgId: string }> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(invitations)
      .where(eq(invitations.tokenHash, hashToken(token)))
      .for("update");
    if (!row) throw notFound("invitation", "token");
    const status = statusOf(row);
    if (status === "accepted" && row.acceptedBy === user.id) {
      noAuditNeeded("the invitation was already accepted by this user");
      return { orgId: row.orgId };
    }
    if (status !== "pending") throw new ApiError("conflict", `This invitation is ${status}.`, "token");
    if (normalizeEmail(user.email) !== row.email) {
      throw notPermitted(`This invitation is for ${row.email}; sign in with that address to accept it.`, "email");
    }
    const who = { actor: `user:${user.id}`, ip: null };
    await addMember(tx, row.orgId, user.id, row.role, who);
    await tx.update(invitations).set({ acceptedAt: new Date(), acceptedBy: user.id }).where(eq(invitations.id, row.id));
    await tx
      .update(users)
      .set({ emailVerified: new Date() })
      .where(and(eq(users.id, user.id), isNull(users.emailVerified)));
    await recordAudit(tx, who, {
      orgId: row.orgId,
      action: "member.invitation_accepted",
      resourceType: "invitation",
      resourceId: row.id,
      metadata: { email: row.email, role: row.role },
    });
    return { orgId: row.orgId };
  });
}

/** True when `email` has a pending invitation anywhere (sign-up in `invite` mode). */
export async function hasPendingInvitation(db: DbOrTx, email: string): Promise<boolean> {
  const rows = await db
    .select({ id: invitations.id })
    .from(invitations)
    .where(
      and(
        eq(invitations.email, normalizeEmail(email)),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, new Date()),
      ),
    )
    .limit(1);
  return rows.length > 0;
}
