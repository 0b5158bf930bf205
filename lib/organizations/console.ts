import { eq, getTableColumns, is } from "drizzle-orm";
import { getTableConfig, type PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { DbOrTx } from "@/db";
import * as schema from "@/db/schema";
import { organizations } from "@/db/schema";
import { invalidRequest, notFound } from "@/lib/core/errors";
import { type AuditActor, noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { publicBaseUrl } from "@/lib/env";
import { sendSystemEmail } from "@/lib/mail/system";
import {
  createInvitation,
  INVITATION_TTL_DAYS,
  type Invitation,
  listPendingInvitations,
  revokeInvitation,
} from "./invitations";
import {
  type Actor,
  deleteMember,
  listMembers,
  type Member,
  organizationName,
  requireMembership,
  requirePermission,
  setMemberRole,
} from "./members";
import { createOrganization, listOrganizationsForUser, type OrganizationSummary } from "./service";
import type { Role } from "@/db/schema";
import { announceKeyChange, forgetKeys } from "@/lib/api-keys/cache";

/**
 * Organization operations of a signed-in console user, shared by the `/v1/organizations…`
 * session endpoints and the console's server actions. Each checks the caller's role itself.
 */

/** A signed-in console user (the kernel's session principal has this shape). */
export interface ConsoleCaller {
  userId: string;
  email: string | null;
  /** Audit actor, `user:<id>`. */
  actor: string;
  ip: string | null;
}

const auditOf = (caller: ConsoleCaller): AuditActor => ({ actor: caller.actor, ip: caller.ip });

async function actorIn(db: DbOrTx, orgId: string, caller: ConsoleCaller): Promise<Actor> {
  return { userId: caller.userId, role: await requireMembership(db, orgId, caller.userId), audit: auditOf(caller) };
}

export async function myOrganizations(
  db: DbOrTx,
  caller: ConsoleCaller,
): Promise<{ organizations: OrganizationSummary[] }> {
  return { organizations: await listOrganizationsForUser(db, caller.userId) };
}

export async function newOrganization(
  db: DbOrTx,
  caller: ConsoleCaller,
  input: { name: string },
): Promise<{ organization: OrganizationSummary }> {
  return db.transaction(async (tx) => ({
    organization: await createOrganization(tx, { name: input.name, ownerUserId: caller.userId }, auditOf(caller)),
  }));
}

export async function membersOf(
  db: DbOrTx,
  caller: ConsoleCaller,
  orgId: string,
): Promise<{ members: Member[]; invitations: Invitation[] }> {
  await requireMembership(db, orgId, caller.userId);
  const [members, invitations] = await Promise.all([listMembers(db, orgId), listPendingInvitations(db, orgId)]);
  return { members, invitations };
}

/** The accept link of an invitation token. */
export const invitationUrl = (token: string) => `${publicBaseUrl()}/invitations/${token}`;

/** Invites `email` and sends the invitation email (after the invitation commits). */
export async function inviteMember(
  db: DbOrTx,
  caller: ConsoleCaller,
  orgId: string,
  input: { email: string; role: Role },
): Promise<{ invitation: Invitation }> {
  const actor = await actorIn(db, orgId, caller);
  const { invitation, token } = await createInvitation(db, orgId, actor, input);
  const url = invitationUrl(token);
  const organization = await organizationName(db, orgId);
  await sendSystemEmail(db, {
    to: invitation.email,
    subject: `You're invited to ${organization}`,
    email: "invitation",
    props: { url, organization, role: invitation.role, invitedBy: caller.email, expiresDays: INVITATION_TTL_DAYS },
    link: url,
  });
  return { invitation };
}

export async function changeRole(
  db: DbOrTx,
  caller: ConsoleCaller,
  orgId: string,
  userId: string,
  role: Role,
): Promise<{ member: Member }> {
  return { member: await setMemberRole(db, orgId, await actorIn(db, orgId, caller), userId, role) };
}

export async function removeFromOrganization(
  db: DbOrTx,
  caller: ConsoleCaller,
  orgId: string,
  userId: string,
): Promise<{ deleted: true; userId: string }> {
  await deleteMember(db, orgId, await actorIn(db, orgId, caller), userId);
  return { deleted: true, userId };
}

export async function withdrawInvitation(
  db: DbOrTx,
  caller: ConsoleCaller,
  orgId: string,
  invitationId: string,
): Promise<null> {
  await revokeInvitation(db, orgId, await actorIn(db, orgId, caller), invitationId);
  return null;
}

/** Renames the organization (owner or admin), with an audit row naming the old and new name. */
export async function renameOrganization(
  db: DbOrTx,
  caller: ConsoleCaller,
  orgId: string,
  name: string,
): Promise<{ organization: OrganizationSummary }> {
  const actor = await actorIn(db, orgId, caller);
  requirePermission(actor.role, "members:manage", "Only an owner or admin can rename the organization.");
  return db.transaction(async (tx) => {
    const before = await organizationName(tx, orgId);
    const [row] = await tx.update(organizations).set({ name }).where(eq(organizations.id, orgId)).returning();
    if (!row) throw notFound("organization", "orgId");
    if (before === name) noAuditNeeded("the organization already has this name");
    else
      await recordAudit(tx, actor.audit, {
        orgId,
        action: "organization.renamed",
        resourceType: "organization",
        resourceId: orgId,
        metadata: { from: before, to: name },
      });
    return {
      organization: { id: row.id, name: row.name, slug: row.slug, vanitySlug: row.vanitySlug, role: actor.role },
    };
  });
}

/**
 * Deletes an organization and everything it owns (owner only): every table with an `org_id`
 * column, in one transaction. Audit rows go with it; the console action writes the deletion to
 * the server log.
 */
export async function deleteOrganization(
  db: DbOrTx,
  caller: ConsoleCaller,
  orgId: string,
  confirmName: string,
): Promise<null> {
  const actor = await actorIn(db, orgId, caller);
  requirePermission(actor.role, "organization:delete", "Only an owner can delete the organization.");
  const name = await organizationName(db, orgId);
  if (confirmName.trim() !== name)
    throw invalidRequest(`Type the organization's name (${name}) to confirm.`, "confirm");
  await db.transaction(async (tx) => {
    for (const { table, orgId: column } of orgTablesChildrenFirst()) await tx.delete(table).where(eq(column, orgId));
    await tx.delete(organizations).where(eq(organizations.id, orgId));
    await announceKeyChange(tx);
  });
  forgetKeys();
  return null;
}

let ordered: { table: PgTable; orgId: PgColumn }[] | undefined;

/** Every table with an `org_id` column, ordered so a table comes before the tables it references. */
function orgTablesChildrenFirst(): { table: PgTable; orgId: PgColumn }[] {
  if (ordered) return ordered;
  const tables = (Object.values(schema) as unknown[]).filter(
    (t): t is PgTable => is(t, PgTable) && t !== organizations,
  );
  const withOrg = tables.flatMap((table) => {
    const column = (getTableColumns(table) as Record<string, PgColumn | undefined>).orgId;
    return column ? [{ table, orgId: column }] : [];
  });
  const out: { table: PgTable; orgId: PgColumn }[] = [];
  const done = new Set<PgTable>();
  const visit = (entry: { table: PgTable; orgId: PgColumn }, path: Set<PgTable>) => {
    if (done.has(entry.table) || path.has(entry.table)) return;
    path.add(entry.table);
    // Tables that reference this one go first.
    for (const other of withOrg) {
      if (getTableConfig(other.table).foreignKeys.some((fk) => fk.reference().foreignTable === entry.table))
        visit(other, path);
    }
    done.add(entry.table);
    out.push(entry);
  };
  for (const entry of withOrg) visit(entry, new Set());
  ordered = out;
  return out;
}
