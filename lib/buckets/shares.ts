import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { bucketObjects, shareLinkOpens, shareLinks } from "@/db/schema";
import { hashPassword, verifyPassword } from "@/lib/account/passwords";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { invalidRequest, notFound } from "@/lib/core/errors";
import { publicBaseUrl, userContentBaseUrl } from "@/lib/env";
import { appendEvent } from "@/lib/events/ledger";
import { refuseUnservable, servable } from "./gate";
import { shareLinkPublicId, shareLinkUuid } from "./ids";
import { findObject } from "./service";

type LinkRow = typeof shareLinks.$inferSelect;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");
const newToken = () => randomBytes(24).toString("base64url");
export const shareUrls = (token: string) => ({ shareUrl: `${publicBaseUrl()}/s/${token}`, downloadUrl: `${userContentBaseUrl()}/d/${token}` });

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


function checkExpiry(expiresAt: string | undefined): Date | null {
  if (!expiresAt) return null;
  const at = new Date(expiresAt);
  if (at.getTime() <= Date.now()) throw invalidRequest("expiresAt must be in the future.", "expiresAt");
  return at;
}

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
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "share_link.created", resourceType: "share_link", resourceId: row.id, metadata: { objectId: object.id, hasPassword: passwordHash !== null, maxUses: row.maxUses, expiresAt: input.expiresAt ?? null } });
    return { ...toShareLink(row), ...shareUrls(token) };
  });
}

export async function listShareLinks(db: DbOrTx, principal: Principal, bucketId: string, objectId: string) {
  const object = await findObject(db, principal, bucketId, objectId);
  const rows = await db.select().from(shareLinks).where(and(eq(shareLinks.orgId, principal.orgId), eq(shareLinks.objectId, object.id))).orderBy(desc(shareLinks.createdAt), desc(shareLinks.id));
  return { object: "list" as const, data: rows.map(toShareLink) };
}

async function findLink(db: DbOrTx, principal: Principal, bucketId: string, objectId: string, linkId: string): Promise<LinkRow> {
  const object = await findObject(db, principal, bucketId, objectId);
  const uuid = shareLinkUuid(linkId);
  const [row] = uuid ? await db.select().from(shareLinks).where(and(eq(shareLinks.orgId, principal.orgId), eq(shareLinks.objectId, object.id), eq(shareLinks.id, uuid))) : [];
  if (!row) throw notFound("share link", "linkId");
  return row;
}

async function revoke(db: DbOrTx, principal: Principal, row: LinkRow): Promise<LinkRow> {
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(shareLinks)
      .set({ revokedAt: sql`coalesce(${shareLinks.revokedAt}, now())` })
      .where(eq(shareLinks.id, row.id))
      .returning();
    if (!updated) throw notFound("share link");
    await recordAudit(tx, principal, { orgId: principal.orgId, action: `${row.kind === "bundle" ? "share_bundle" : "share_link"}.revoked`, resourceType: row.kind === "bundle" ? "share_bundle" : "share_link", resourceId: row.id });
    return updated;
  });
}

export async function revokeShareLink(db: DbOrTx, principal: Principal, bucketId: string, objectId: string, linkId: string) {
  return toShareLink(await revoke(db, principal, await findLink(db, principal, bucketId, objectId, linkId)));
}

export async function listShareLinkOpens(db: DbOrTx, principal: Principal, bucketId: string, objectId: string, linkId: string) {
  const link = await findLink(db, principal, bucketId, objectId, linkId);
  const rows = await db.select().from(shareLinkOpens).where(eq(shareLinkOpens.shareLinkId, link.id)).orderBy(desc(shareLinkOpens.createdAt), desc(shareLinkOpens.id)).limit(500);
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
    summary: { views: Number(summary?.views ?? 0), downloads: Number(summary?.downloads ?? 0), refused: Number(summary?.refused ?? 0), lastOpenedAt: last?.toISOString() ?? null },
    data: rows.map((r) => ({ id: r.id, kind: r.kind, outcome: r.outcome, objectId: r.objectId, ip: r.ip, userAgent: r.userAgent, createdAt: r.createdAt.toISOString() })),
  };
}

export async function createShareBundle(db: DbOrTx, principal: Principal, input: { objectIds: string[]; password?: string; maxUses?: number; expiresAt?: string }) {
  const ids = [...new Set(input.objectIds)];
  const rows = await db.select().from(bucketObjects).where(and(eq(bucketObjects.orgId, principal.orgId), inArray(bucketObjects.id, ids)));
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
      .values({ orgId: principal.orgId, kind: "bundle", objectIds: ids, tokenHash: hashToken(token), passwordHash, maxUses: input.maxUses ?? null, expiresAt })
      .returning();
    if (!row) throw new Error("share bundle insert returned nothing");
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "share_bundle.created", resourceType: "share_bundle", resourceId: row.id, metadata: { fileCount: ids.length, hasPassword: passwordHash !== null } });
    return { ...toShareBundle(row), shareUrl: shareUrls(token).shareUrl, token };
  });
}

export async function listShareBundles(db: DbOrTx, principal: Principal) {
  const rows = await db.select().from(shareLinks).where(and(eq(shareLinks.orgId, principal.orgId), eq(shareLinks.kind, "bundle"))).orderBy(desc(shareLinks.createdAt), desc(shareLinks.id)).limit(200);
  return { object: "list" as const, data: rows.map(toShareBundle) };
}

export async function revokeShareBundle(db: DbOrTx, principal: Principal, bundleId: string) {
  const [row] = await db.select().from(shareLinks).where(and(eq(shareLinks.orgId, principal.orgId), eq(shareLinks.kind, "bundle"), eq(shareLinks.id, bundleId)));
  if (!row) throw notFound("share bundle", "bundleId");
  return toShareBundle(await revoke(db, principal, row));
}

// ---- The public side: /s/{token} (page) and /d/{token} (download). ----

export interface SharedFile {
  id: string;
  filename: string;
  bytes: number;
  contentType: string | null;
  storageKey: string;
}

export interface ShareView {
  linkId: string;
  kind: LinkRow["kind"];
  hasPassword: boolean;
  files: SharedFile[];
  /** Why the link cannot be used now (expired, revoked, used up), or null. */
  closed: string | null;
}

function closedReason(link: LinkRow, now = new Date()): string | null {
  if (link.revokedAt) return "revoked";
  if (link.expiresAt && link.expiresAt <= now) return "expired";
  if (link.maxUses !== null && link.usesCount >= link.maxUses) return "used_up";
  return null;
}

async function linkByToken(db: DbOrTx, token: string): Promise<LinkRow | null> {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return null;
  const [row] = await db.select().from(shareLinks).where(eq(shareLinks.tokenHash, hashToken(token)));
  return row ?? null;
}

async function filesOf(db: DbOrTx, link: LinkRow): Promise<SharedFile[]> {
  const ids = link.kind === "object" ? (link.objectId ? [link.objectId] : []) : link.objectIds;
  if (ids.length === 0) return [];
  const rows = await db.select().from(bucketObjects).where(and(eq(bucketObjects.orgId, link.orgId), inArray(bucketObjects.id, ids)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r && servable(r.state) ? [{ id: r.id, filename: r.filename, bytes: r.bytes, contentType: r.contentType, storageKey: r.storageKey }] : [];
  });
}

export interface Visitor {
  ip: string | null;
  userAgent: string | null;
}

async function logOpen(db: DbOrTx, link: LinkRow, kind: "view" | "download", outcome: string, objectId: string | null, who: Visitor): Promise<void> {
  await db.insert(shareLinkOpens).values({ orgId: link.orgId, shareLinkId: link.id, objectId, kind, outcome, ip: who.ip, userAgent: who.userAgent?.slice(0, 300) ?? null });
}

/** The share page: what the link shows (a view is logged; it uses nothing). Null for an unknown token. */
export async function viewShare(db: DbOrTx, token: string, who: Visitor, opts: { log?: boolean } = {}): Promise<ShareView | null> {
  const link = await linkByToken(db, token);
  if (!link) return null;
  const closed = closedReason(link);
  if (opts.log !== false) await logOpen(db, link, "view", closed ?? "viewed", null, who);
  return { linkId: link.id, kind: link.kind, hasPassword: link.passwordHash !== null, files: closed ? [] : await filesOf(db, link), closed };
}

export type DownloadResult =
  | { ok: true; file: SharedFile }
  | { ok: false; status: 401 | 403 | 404 | 410; reason: "unknown" | "password_required" | "wrong_password" | "revoked" | "expired" | "used_up" | "not_available" };

/**
 * A download through a share link: the password (Argon2id) is checked first, then one use is
 * taken by a single guarded UPDATE (not revoked, not expired, uses below maxUses), so concurrent
 * downloads of a one-time link yield exactly one success. The open is logged and
 * `share_link.opened` emitted in the same transaction as the use.
 */
export async function downloadShare(db: DbOrTx, token: string, opts: { password?: string | null; objectId?: string | null }, who: Visitor): Promise<DownloadResult> {
  const link = await linkByToken(db, token);
  if (!link) return { ok: false, status: 404, reason: "unknown" };
  const files = await filesOf(db, link);
  const file = opts.objectId ? files.find((f) => f.id === opts.objectId) : link.kind === "object" ? files[0] : undefined;
  const refuse = async (status: 401 | 403 | 404 | 410, reason: Exclude<DownloadResult, { ok: true }>["reason"]): Promise<DownloadResult> => {
    await logOpen(db, link, "download", reason, file?.id ?? null, who);
    return { ok: false, status, reason };
  };
  if (!file) return refuse(404, "not_available");
  if (link.passwordHash) {
    if (!opts.password) return refuse(401, "password_required");
    if (!(await verifyPassword(link.passwordHash, opts.password))) return refuse(403, "wrong_password");
  }
  const taken = await db.transaction(async (tx) => {
    const [used] = await tx
      .update(shareLinks)
      .set({ usesCount: sql`${shareLinks.usesCount} + 1` })
      .where(
        and(
          eq(shareLinks.id, link.id),
          isNull(shareLinks.revokedAt),
          or(isNull(shareLinks.expiresAt), gt(shareLinks.expiresAt, sql`now()`)),
          or(isNull(shareLinks.maxUses), lt(shareLinks.usesCount, shareLinks.maxUses)),
        ),
      )
      .returning({ usesCount: shareLinks.usesCount });
    if (!used) return null;
    await logOpen(tx, link, "download", "downloaded", file.id, who);
    await appendEvent(tx, {
      orgId: link.orgId,
      type: "share_link.opened",
      partitionKey: `share_link:${link.id}`,
      data: {
        shareLinkId: link.kind === "object" ? shareLinkPublicId(link.id) : null,
        bundleId: link.kind === "bundle" ? link.id : null,
        objectId: file.id,
        filename: file.filename,
        usesCount: used.usesCount,
        maxUses: link.maxUses,
        ip: who.ip,
      },
    });
    return used;
  });
  if (taken) return { ok: true, file };
  // Lost the race or the link closed: say why, from the row as it is now.
  const [now] = await db.select().from(shareLinks).where(eq(shareLinks.id, link.id));
  const reason = (now && closedReason(now)) ?? "used_up";
  return refuse(410, reason as "revoked" | "expired" | "used_up");
}

// ---- Sends that deliver an object by link (lib/messages/stages/attach.ts). ----

/** `/s/{token}` and `/d/{token}` as they appear in a message body (any host: the token decides). */
const SHARE_TOKEN_IN_TEXT = /\/[sd]\/([A-Za-z0-9_-]{16,64})/g;
const MAX_TOKENS_LOOKED_UP = 200;

/**
 * The open share link — of the object itself, or a bundle holding it; not revoked, expired or used
 * up — whose URL appears in one of `bodies`, as its public id; null when there is none. A send's
 * `delivery: "link"` needs one (the service never edits the body to add it).
 */
export async function shareLinkInBodies(db: DbOrTx, orgId: string, objectId: string, bodies: (string | null)[]): Promise<string | null> {
  const tokens = new Set<string>();
  for (const body of bodies) for (const m of body?.matchAll(SHARE_TOKEN_IN_TEXT) ?? []) if (m[1] && tokens.size < MAX_TOKENS_LOOKED_UP) tokens.add(m[1]);
  if (tokens.size === 0) return null;
  const rows = await db
    .select()
    .from(shareLinks)
    .where(
      and(
        eq(shareLinks.orgId, orgId),
        inArray(shareLinks.tokenHash, [...tokens].map(hashToken)),
        or(eq(shareLinks.objectId, objectId), sql`${objectId}::uuid = any(${shareLinks.objectIds})`),
      ),
    );
  const open = rows.find((r) => closedReason(r) === null);
  if (!open) return null;
  return open.kind === "object" ? toShareLink(open).id : toShareBundle(open).id;
}
