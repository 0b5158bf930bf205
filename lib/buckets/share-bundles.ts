import { and, desc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { bucketObjects, shareLinks } from "@/db/schema";
import { hashPassword } from "@/lib/account/passwords";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { notFound } from "@/lib/core/errors";
import { refuseUnservable } from "./gate";
import { checkExpiry, hashToken, newToken, revoke, shareUrls, toShareBundle } from "./share-rows";

export async function createShareBundle(
  db: DbOrTx,
  principal: Principal,
  input: { objectIds: string[]; password?: string; maxUses?: number; expiresAt?: string },
) {
  const ids = [...new Set(input.objectIds)];
  const rows = await db
    .select()
    .from(bucketObjects)
    .where(and(eq(bucketObjects.orgId, principal.orgId), inArray(bucketObjects.id, ids)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  ids.forEach((id, i) => {
    const row = byId.get(id);
    if (!row || row.state === "uploading") throw notFound("object", `objectIds[${i}]`);
    refuseUnservable(row, `objectIds[${i}]`, "shared");
  });
  const expiresAt = checkExpiry(input.expiresAt);
  const token = newToken();
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(shareLinks)
      .values({
        orgId: principal.orgId,
        kind: "bundle",
        objectIds: ids,
        tokenHash: hashToken(token),
        passwordHash,
        maxUses: input.maxUses ?? null,
        expiresAt,
      })
      .returning();
    if (!row) throw new Error("share bundle insert returned nothing");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "share_bundle.created",
      resourceType: "share_bundle",
      resourceId: row.id,
      metadata: { fileCount: ids.length, hasPassword: passwordHash !== null },
    });
    return { ...toShareBundle(row), shareUrl: shareUrls(token).shareUrl, token };
  });
}

export async function listShareBundles(db: DbOrTx, principal: Principal) {
  const rows = await db
    .select()
    .from(shareLinks)
    .where(and(eq(shareLinks.orgId, principal.orgId), eq(shareLinks.kind, "bundle")))
    .orderBy(desc(shareLinks.createdAt), desc(shareLinks.id))
    .limit(200);
  return { object: "list" as const, data: rows.map(toShareBundle) };
}

export async function revokeShareBundle(db: DbOrTx, principal: Principal, bundleId: string) {
  const [row] = await db
    .select()
    .from(shareLinks)
    .where(and(eq(shareLinks.orgId, principal.orgId), eq(shareLinks.kind, "bundle"), eq(shareLinks.id, bundleId)));
  if (!row) throw notFound("share bundle", "bundleId");
  return toShareBundle(await revoke(db, principal, row));
}
