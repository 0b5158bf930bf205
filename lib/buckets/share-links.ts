import { and, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { shareLinkOpens, shareLinks } from "@/db/schema";
import { hashPassword } from "@/lib/account/passwords";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { notFound } from "@/lib/core/errors";
import { refuseUnservable } from "./gate";
import { shareLinkPublicId, shareLinkUuid } from "./ids";
import { findObject } from "./bucket";
import { checkExpiry, hashToken, type LinkRow, newToken, revoke, shareUrls, toShareLink } from "./share-rows";

export async function createShareLink(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
  objectId: string,
  input: { password?: string; maxUses?: number; oneTime?: boolean; expiresAt?: string },
) {
  const object = await findObject(db, principal, bucketId, objectId);
  refuseUnservable(object, "objectId", "shared");
  const expiresAt = checkExpiry(input.expiresAt);
  const token = newToken();
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(shareLinks)
      .values({
        orgId: principal.orgId,
        kind: "object",
        objectId: object.id,
        tokenHash: hashToken(token),
        passwordHash,
        oneTime: input.oneTime ?? false,
        maxUses: input.oneTime ? 1 : (input.maxUses ?? null),
        expiresAt,
      })
      .returning();
    if (!row) throw new Error("share link insert returned nothing");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "share_link.created",
      resourceType: "share_link",
      resourceId: row.id,
      metadata: {
        objectId: object.id,
        hasPassword: passwordHash !== null,
        maxUses: row.maxUses,
        expiresAt: input.expiresAt ?? null,
      },
    });
    return { ...toShareLink(row), ...shareUrls(token) };
  });
}

export async function listShareLinks(db: DbOrTx, principal: Principal, bucketId: string, objectId: string) {
  const object = await findObject(db, principal, bucketId, objectId);
  const rows = await db
    .select()
    .from(shareLinks)
    .where(and(eq(shareLinks.orgId, principal.orgId), eq(shareLinks.objectId, object.id)))
    .orderBy(desc(shareLinks.createdAt), desc(shareLinks.id));
  return { object: "list" as const, data: rows.map(toShareLink) };
}

async function findLink(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
  objectId: string,
  linkId: string,
): Promise<LinkRow> {
  const object = await findObject(db, principal, bucketId, objectId);
  const uuid = shareLinkUuid(linkId);
  const [row] = uuid
    ? await db
        .select()
        .from(shareLinks)
        .where(and(eq(shareLinks.orgId, principal.orgId), eq(shareLinks.objectId, object.id), eq(shareLinks.id, uuid)))
    : [];
  if (!row) throw notFound("share link", "linkId");
  return row;
}

export async function revokeShareLink(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
  objectId: string,
  linkId: string,
) {
  return toShareLink(await revoke(db, principal, await findLink(db, principal, bucketId, objectId, linkId)));
}

export async function listShareLinkOpens(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
  objectId: string,
  linkId: string,
) {
  const link = await findLink(db, principal, bucketId, objectId, linkId);
  const rows = await db
    .select()
    .from(shareLinkOpens)
    .where(eq(shareLinkOpens.shareLinkId, link.id))
    .orderBy(desc(shareLinkOpens.createdAt), desc(shareLinkOpens.id))
    .limit(500);
  const [summary] = await db
    .select({
      views: sql<string>`count(*) filter (where ${shareLinkOpens.kind} = 'view')`,
      downloads: sql<string>`count(*) filter (where ${shareLinkOpens.kind} = 'download' and ${shareLinkOpens.outcome} = 'downloaded')`,
      refused: sql<string>`count(*) filter (where ${shareLinkOpens.outcome} not in ('downloaded', 'viewed'))`,
      last: sql<Date | null>`max(${shareLinkOpens.createdAt})`,
    })
    .from(shareLinkOpens)
    .where(eq(shareLinkOpens.shareLinkId, link.id));
  const last = summary?.last ? new Date(summary.last) : null;
  return {
    object: "share_link_opens" as const,
    shareLinkId: shareLinkPublicId(link.id),
    objectId: link.objectId ?? "",
    summary: {
      views: Number(summary?.views ?? 0),
      downloads: Number(summary?.downloads ?? 0),
      refused: Number(summary?.refused ?? 0),
      lastOpenedAt: last?.toISOString() ?? null,
    },
    data: rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      outcome: r.outcome,
      objectId: r.objectId,
      ip: r.ip,
      userAgent: r.userAgent,
      createdAt: r.createdAt.toISOString(),
    })),
  };
}
