import { createHash, randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { shareLinks } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { invalidRequest, notFound } from "@/lib/core/errors";
import { publicBaseUrl, userContentBaseUrl } from "@/lib/env";
import { shareLinkPublicId } from "./ids";

export type LinkRow = typeof shareLinks.$inferSelect;

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export const newToken = () => randomBytes(24).toString("base64url");

export const shareUrls = (token: string) => ({
  shareUrl: `${publicBaseUrl()}/s/${token}`,
  downloadUrl: `${userContentBaseUrl()}/d/${token}`,
});

export function toShareLink(row: LinkRow) {
  return {
    object: "share_link" as const,
    id: shareLinkPublicId(row.id),
    objectId: row.objectId ?? "",
    hasPassword: row.passwordHash !== null,
    maxUses: row.maxUses,
    oneTime: row.oneTime,
    usesCount: row.usesCount,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revoked: row.revokedAt !== null,
    createdAt: row.createdAt.toISOString(),
  };
}

export function toShareBundle(row: LinkRow) {
  return {
    object: "share_bundle" as const,
    id: row.id,
    fileCount: row.objectIds.length,
    objectIds: row.objectIds,
    hasPassword: row.passwordHash !== null,
    maxUses: row.maxUses,
    usesCount: row.usesCount,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revoked: row.revokedAt !== null,
    createdAt: row.createdAt.toISOString(),
  };
}

export function checkExpiry(expiresAt: string | undefined): Date | null {
  if (!expiresAt) return null;
  const at = new Date(expiresAt);
  if (at.getTime() <= Date.now()) throw invalidRequest("expiresAt must be in the future.", "expiresAt");
  return at;
}

export async function revoke(db: DbOrTx, principal: Principal, row: LinkRow): Promise<LinkRow> {
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(shareLinks)
      .set({ revokedAt: sql`coalesce(${shareLinks.revokedAt}, now())` })
      .where(eq(shareLinks.id, row.id))
      .returning();
    if (!updated) throw notFound("share link");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: `${row.kind === "bundle" ? "share_bundle" : "share_link"}.revoked`,
      resourceType: row.kind === "bundle" ? "share_bundle" : "share_link",
      resourceId: row.id,
    });
    return updated;
  });
}
