import { and, count, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { INBOX_ADDRESS_CHANNEL } from "@/lib/channels/definitions";
import { z } from "zod";
import type { DbOrTx } from "@/db";
import { audienceMembers, audiences } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { invalidRequest, notFound } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { contactAddress, isContactRef } from "@/lib/contacts/addressing";

type AudienceRow = typeof audiences.$inferSelect;
type MemberRow = typeof audienceMembers.$inferSelect;

export function toAudience(row: AudienceRow, memberCount: number | null) {
  return {
    object: "audience" as const,
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    memberCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toMember(row: MemberRow) {
  return {
    object: "audience_member" as const,
    id: row.id,
    audienceId: row.audienceId,
    email: row.email,
    name: row.name,
    contactId: row.contactId,
    metadata: row.metadata,
    status: row.status,
    source: row.source,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The organization's audience (404 naming `audienceId` otherwise); `lock` takes its row lock. */
export async function findAudience(
  db: DbOrTx,
  orgId: string,
  audienceId: string,
  opts: { lock?: boolean } = {},
): Promise<AudienceRow> {
  const q = db
    .select()
    .from(audiences)
    .where(and(eq(audiences.orgId, orgId), eq(audiences.id, audienceId)));
  const [row] = opts.lock ? await q.for("update") : await q;
  if (!row) throw notFound("audience", "audienceId");
  return row;
}

async function memberCount(db: DbOrTx, audienceId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(audienceMembers).where(eq(audienceMembers.audienceId, audienceId));
  return Number(row?.n ?? 0);
}

export async function listAudiences(db: DbOrTx, principal: Principal) {
  // The outer table is named in full: drizzle writes a single-table select's columns unqualified.
  const n = sql<number>`(select count(*) from ${audienceMembers} m where m.audience_id = "audiences"."id")`.mapWith(
    Number,
  );
  const rows = await db
    .select({ row: audiences, n })
    .from(audiences)
    .where(eq(audiences.orgId, principal.orgId))
    .orderBy(desc(audiences.createdAt), desc(audiences.id));
  return { audiences: rows.map((r) => toAudience(r.row, r.n)) };
}

export async function createAudience(db: DbOrTx, principal: Principal, input: { name: string; description?: string }) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(audiences)
      .values({ orgId: principal.orgId, name: input.name, description: input.description ?? null })
      .returning();
    if (!row) throw new Error("audience insert returned nothing");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "audience.created",
      resourceType: "audience",
      resourceId: row.id,
      metadata: { name: row.name },
    });
    return { list: toAudience(row, 0) };
  });
}

export async function getAudience(
  db: DbOrTx,
  principal: Principal,
  audienceId: string,
  query: { limit: number; cursor?: string; status?: "active" | "unsubscribed" },
) {
  const row = await findAudience(db, principal.orgId, audienceId);
  const where: (SQL | undefined)[] = [
    eq(audienceMembers.audienceId, row.id),
    keysetBefore(audienceMembers.createdAt, audienceMembers.id, decodeCursor(query.cursor)),
  ];
  if (query.status) where.push(eq(audienceMembers.status, query.status));
  const rows = await db
    .select()
    .from(audienceMembers)
    .where(and(...where))
    .orderBy(desc(audienceMembers.createdAt), desc(audienceMembers.id))
    .limit(query.limit + 1);
  const { items, pagination } = toPage(rows, query.limit);
  return { list: toAudience(row, await memberCount(db, row.id)), members: items.map(toMember), pagination };
}

export async function deleteAudience(db: DbOrTx, principal: Principal, audienceId: string) {
  return db.transaction(async (tx) => {
    const row = await findAudience(tx, principal.orgId, audienceId, { lock: true });
    await tx.delete(audiences).where(eq(audiences.id, row.id));
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "audience.deleted",
      resourceType: "audience",
      resourceId: row.id,
      metadata: { name: row.name },
    });
    return { deleted: true as const, id: row.id };
  });
}

type MemberInput = { email?: string; contact?: string; name?: string; metadata?: Record<string, unknown> };
const emailSchema = z.email();
/** Rows per multi-row INSERT. */
const INSERT_CHUNK = 500;

/**
 * Members by address or contact reference (a contact's address is its primary email handle).
 * Duplicates are merged — within the request (the first wins) and with existing members (left as
 * they are); `imported` counts the rows that are new.
 */
export async function addAudienceMembers(
  db: DbOrTx,
  principal: Principal,
  audienceId: string,
  input: { members: MemberInput[] },
) {
  const orgId = principal.orgId;
  const rows = new Map<string, typeof audienceMembers.$inferInsert>();
  for (const [i, m] of input.members.entries()) {
    const ref = m.contact ?? (m.email && isContactRef(m.email) ? m.email : null);
    const param = m.contact !== undefined ? `members[${i}].contact` : `members[${i}].email`;
    let email: string;
    let contactId: string | null = null;
    if (ref) {
      ({ address: email, contactId } = await contactAddress(db, orgId, ref, [INBOX_ADDRESS_CHANNEL], param));
    } else {
      email = (m.email ?? "").trim().toLowerCase();
      if (!emailSchema.safeParse(email).success)
        throw invalidRequest(`"${m.email}" is not a valid email address.`, param);
    }
    if (rows.has(email)) continue;
    rows.set(email, {
      orgId,
      audienceId,
      email,
      name: m.name ?? null,
      contactId,
      metadata: m.metadata ?? {},
      source: contactId ? "contact" : "api",
    });
  }
  return db.transaction(async (tx) => {
    const row = await findAudience(tx, orgId, audienceId, { lock: true });
    const all = [...rows.values()];
    let imported = 0;
    for (let i = 0; i < all.length; i += INSERT_CHUNK) {
      const written = await tx
        .insert(audienceMembers)
        .values(all.slice(i, i + INSERT_CHUNK))
        .onConflictDoNothing()
        .returning({ id: audienceMembers.id });
      imported += written.length;
    }
    await tx.update(audiences).set({ updatedAt: new Date() }).where(eq(audiences.id, row.id));
    await recordAudit(tx, principal, {
      orgId,
      action: "audience.members_added",
      resourceType: "audience",
      resourceId: row.id,
      metadata: { requested: input.members.length, imported },
    });
    return { audienceId: row.id, imported };
  });
}

export async function removeAudienceMember(db: DbOrTx, principal: Principal, audienceId: string, memberId: string) {
  return db.transaction(async (tx) => {
    const row = await findAudience(tx, principal.orgId, audienceId);
    const deleted = await tx
      .delete(audienceMembers)
      .where(and(eq(audienceMembers.audienceId, row.id), eq(audienceMembers.id, memberId)))
      .returning({ id: audienceMembers.id, email: audienceMembers.email });
    if (deleted.length === 0) throw notFound("audience member", "memberId");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "audience.member_removed",
      resourceType: "audience",
      resourceId: row.id,
      metadata: { memberId },
    });
    return { deleted: true as const, id: memberId };
  });
}

/** Members by address in an audience (used by the broadcast sink to re-check status at send time). */
export async function membersByEmail(db: DbOrTx, audienceId: string, emails: string[]): Promise<MemberRow[]> {
  if (emails.length === 0) return [];
  return db
    .select()
    .from(audienceMembers)
    .where(and(eq(audienceMembers.audienceId, audienceId), inArray(audienceMembers.email, emails)));
}
