import { and, asc, desc, eq, inArray, ne, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { bucketObjects, buckets } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { ApiError, notFound, notPermitted } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { env } from "@/lib/env";
import { storage } from "@/lib/providers/storage";
import { bucketPublicId, bucketUuid } from "./ids";

export type BucketRow = typeof buckets.$inferSelect;
export type ObjectRow = typeof bucketObjects.$inferSelect;
export type ScanStatus = Exclude<ObjectRow["state"], "uploading">;

export interface Bucket {
  object: "bucket";
  id: string;
  name: string;
  isDefault: boolean;
  isInbound: boolean;
  status: BucketRow["status"];
  usedBytes: number;
  objectCount: number;
  displayName: string | null;
  description: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

export interface BucketObject {
  object: "bucket_object";
  id: string;
  bucketId: string;
  filename: string;
  bytes: number;
  contentType: string | null;
  scanStatus: ScanStatus;
  scanSignature: string | null;
  scannedAt: string | null;
  createdAt: string;
}

/** Objects that count: finalized (an `uploading` row is only a claim on a storage key). */
export const finalized = ne(bucketObjects.state, "uploading");

/** The default and the reserved inbound bucket; created on first need, never deleted. */
export async function ensureBuckets(db: DbOrTx, orgId: string): Promise<void> {
  await db
    .insert(buckets)
    .values([
      { orgId, name: "default", kind: "default", displayName: "Default" },
      { orgId, name: "inbound", kind: "inbound", displayName: "Inbound email attachments" },
    ])
    .onConflictDoNothing();
}

export async function reservedBucket(db: DbOrTx, orgId: string, kind: "default" | "inbound"): Promise<BucketRow> {
  await ensureBuckets(db, orgId);
  const [row] = await db.select().from(buckets).where(and(eq(buckets.orgId, orgId), eq(buckets.kind, kind)));
  if (!row) throw new Error(`organization ${orgId} has no ${kind} bucket`);
  return row;
}

async function usage(db: DbOrTx, orgId: string, bucketIds: string[]): Promise<Map<string, { bytes: number; count: number }>> {
  if (bucketIds.length === 0) return new Map();
  const rows = await db
    .select({ bucketId: bucketObjects.bucketId, bytes: sql<string>`coalesce(sum(${bucketObjects.bytes}), 0)`, count: sql<string>`count(*)` })
    .from(bucketObjects)
    .where(and(eq(bucketObjects.orgId, orgId), inArray(bucketObjects.bucketId, bucketIds), finalized))
    .groupBy(bucketObjects.bucketId);
  return new Map(rows.map((r) => [r.bucketId, { bytes: Number(r.bytes), count: Number(r.count) }]));
}

function toBucket(row: BucketRow, u: { bytes: number; count: number } | undefined): Bucket {
  return {
    object: "bucket",
    id: bucketPublicId(row.id),
    name: row.name,
    isDefault: row.kind === "default",
    isInbound: row.kind === "inbound",
    status: row.status,
    usedBytes: u?.bytes ?? 0,
    objectCount: u?.count ?? 0,
    displayName: row.displayName,
    description: row.description,
    metadata: row.metadata ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function bucketWithUsage(db: DbOrTx, row: BucketRow): Promise<Bucket> {
  return toBucket(row, (await usage(db, row.orgId, [row.id])).get(row.id));
}

export function toObject(row: ObjectRow): BucketObject {
  return {
    object: "bucket_object",
    id: row.id,
    bucketId: bucketPublicId(row.bucketId),
    filename: row.filename,
    bytes: row.bytes,
    contentType: row.contentType,
    scanStatus: row.state === "uploading" ? "pending" : row.state,
    scanSignature: row.scanSignature,
    scannedAt: row.scannedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

export async function findBucket(db: DbOrTx, principal: Principal, bucketId: string): Promise<BucketRow> {
  const uuid = bucketUuid(bucketId);
  const [row] = uuid ? await db.select().from(buckets).where(and(eq(buckets.orgId, principal.orgId), eq(buckets.id, uuid))) : [];
  if (!row) throw notFound("bucket", "bucketId");
  return row;
}

/** A finalized object of the bucket (an upload in progress is found only with `uploading`). */
export async function findObject(db: DbOrTx, principal: Principal, bucketId: string, objectId: string, opts: { uploading?: boolean } = {}): Promise<ObjectRow> {
  const bucket = await findBucket(db, principal, bucketId);
  const [row] = await db
    .select()
    .from(bucketObjects)
    .where(and(eq(bucketObjects.orgId, principal.orgId), eq(bucketObjects.bucketId, bucket.id), eq(bucketObjects.id, objectId)));
  if (!row || (row.state === "uploading" && !opts.uploading)) throw notFound("object", "objectId");
  return row;
}

export async function listBuckets(db: DbOrTx, principal: Principal) {
  await ensureBuckets(db, principal.orgId);
  const rows = await db
    .select()
    .from(buckets)
    .where(eq(buckets.orgId, principal.orgId))
    .orderBy(sql`case ${buckets.kind} when 'default' then 0 when 'inbound' then 1 else 2 end`, asc(buckets.createdAt), asc(buckets.id));
  const u = await usage(
    db,
    principal.orgId,
    rows.map((r) => r.id),
  );
  return { object: "list" as const, data: rows.map((r) => toBucket(r, u.get(r.id))), pagination: { nextCursor: null, hasMore: false } };
}

interface BucketFields {
  displayName?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
}

export async function createBucket(db: DbOrTx, principal: Principal, input: BucketFields & { name: string }): Promise<Bucket> {
  await ensureBuckets(db, principal.orgId);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(buckets)
      .values({ orgId: principal.orgId, name: input.name, kind: "custom", displayName: input.displayName ?? null, description: input.description ?? null, metadata: input.metadata ?? null })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new ApiError("conflict", `A bucket named ${input.name} already exists.`, "name");
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "bucket.created", resourceType: "bucket", resourceId: row.id, metadata: { name: row.name } });
    return toBucket(row, undefined);
  });
}

export async function getBucket(db: DbOrTx, principal: Principal, bucketId: string): Promise<Bucket> {
  return bucketWithUsage(db, await findBucket(db, principal, bucketId));
}

export async function updateBucket(db: DbOrTx, principal: Principal, bucketId: string, input: BucketFields & { status?: "active" | "archived" }): Promise<Bucket> {
  const row = await findBucket(db, principal, bucketId);
  if (input.status === "archived" && row.kind !== "custom") throw notPermitted("The default and the inbound bucket cannot be archived.", "status");
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(buckets)
      .set({
        ...(input.displayName !== undefined ? { displayName: input.displayName } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
        ...(input.status !== undefined ? { status: input.status } : {}),
        updatedAt: new Date(),
      })
      .where(eq(buckets.id, row.id))
      .returning();
    if (!updated) throw notFound("bucket", "bucketId");
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "bucket.updated", resourceType: "bucket", resourceId: row.id, metadata: { fields: Object.keys(input) } });
    return bucketWithUsage(tx, updated);
  });
}

export async function deleteBucket(db: DbOrTx, principal: Principal, bucketId: string): Promise<{ deleted: true; id: string }> {
  const row = await findBucket(db, principal, bucketId);
  if (row.kind !== "custom") throw notPermitted(`The ${row.kind} bucket cannot be deleted.`, "bucketId");
  const pending: string[] = [];
  await db.transaction(async (tx) => {
    const [used] = await tx.select({ id: bucketObjects.id }).from(bucketObjects).where(and(eq(bucketObjects.bucketId, row.id), finalized)).limit(1);
    if (used) throw new ApiError("conflict", "The bucket still has objects; delete them first.", "bucketId");
    // Uploads never finalized: their keys go with the bucket.
    const claims = await tx.delete(bucketObjects).where(eq(bucketObjects.bucketId, row.id)).returning({ key: bucketObjects.storageKey });
    pending.push(...claims.map((c) => c.key));
    await tx.delete(buckets).where(eq(buckets.id, row.id));
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "bucket.deleted", resourceType: "bucket", resourceId: row.id, metadata: { name: row.name } });
  });
  for (const key of pending) await storage().delete(key);
  return { deleted: true, id: bucketId };
}

export async function listObjects(db: DbOrTx, principal: Principal, bucketId: string, query: { limit: number; cursor?: string; scanStatus?: ScanStatus }) {
  const bucket = await findBucket(db, principal, bucketId);
  const after = decodeCursor(query.cursor);
  const rows = await db
    .select()
    .from(bucketObjects)
    .where(
      and(
        eq(bucketObjects.orgId, principal.orgId),
        eq(bucketObjects.bucketId, bucket.id),
        query.scanStatus ? eq(bucketObjects.state, query.scanStatus) : finalized,
        keysetBefore(bucketObjects.createdAt, bucketObjects.id, after),
      ),
    )
    .orderBy(desc(bucketObjects.createdAt), desc(bucketObjects.id))
    .limit(query.limit + 1);
  const page = toPage(rows, query.limit);
  return { object: "list" as const, data: page.items.map(toObject), pagination: page.pagination };
}

export async function getObject(db: DbOrTx, principal: Principal, bucketId: string, objectId: string): Promise<BucketObject> {
  return toObject(await findObject(db, principal, bucketId, objectId));
}

/** The owner's download URL; infected bytes are never served. */
export async function objectDownloadUrl(db: DbOrTx, principal: Principal, bucketId: string, objectId: string, expiresInSeconds: number) {
  const row = await findObject(db, principal, bucketId, objectId);
  if (row.state === "infected") throw notPermitted(`This object is infected (${row.scanSignature ?? "malware"}) and is never served.`, "objectId");
  const url = await storage().presignGet({ key: row.storageKey, expiresInSeconds, filename: row.filename, contentType: row.contentType });
  return { downloadUrl: url.url, expiresInSeconds, expiresAt: url.expiresAt.toISOString() };
}

/** Deletes object rows (their share links cascade) and then the bytes they own. */
async function deleteRows(db: DbOrTx, principal: Principal, rows: ObjectRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.transaction(async (tx) => {
    await tx.delete(bucketObjects).where(
      inArray(
        bucketObjects.id,
        rows.map((r) => r.id),
      ),
    );
    for (const r of rows) {
      await recordAudit(tx, principal, { orgId: principal.orgId, action: "bucket_object.deleted", resourceType: "bucket_object", resourceId: r.id, metadata: { bucketId: bucketPublicId(r.bucketId), filename: r.filename } });
    }
  });
  // After the commit; bytes left by a crash here belong to no row and the storage sweep collects them.
  for (const r of rows) if (!r.attachmentId) await storage().delete(r.storageKey);
}

function refuseAttachmentObject(row: ObjectRow): ApiError | null {
  return row.attachmentId ? notPermitted("This object is an inbound email attachment; it goes when its message is deleted.", "objectId") : null;
}

export async function deleteObject(db: DbOrTx, principal: Principal, bucketId: string, objectId: string): Promise<{ deleted: true; id: string }> {
  const row = await findObject(db, principal, bucketId, objectId);
  const refused = refuseAttachmentObject(row);
  if (refused) throw refused;
  await deleteRows(db, principal, [row]);
  return { deleted: true, id: row.id };
}

export async function batchDeleteObjects(db: DbOrTx, principal: Principal, bucketId: string, objectIds: string[]) {
  const bucket = await findBucket(db, principal, bucketId);
  const ids = [...new Set(objectIds)];
  const rows = await db
    .select()
    .from(bucketObjects)
    .where(and(eq(bucketObjects.orgId, principal.orgId), eq(bucketObjects.bucketId, bucket.id), inArray(bucketObjects.id, ids), finalized));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const failed: { id: string; code: string; message: string }[] = [];
  const doomed: ObjectRow[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    const refused = row ? refuseAttachmentObject(row) : notFound("object");
    if (refused) failed.push({ id, code: refused.code, message: refused.message });
    else if (row) doomed.push(row);
  }
  if (doomed.length === 0) noAuditNeeded("nothing was deleted");
  await deleteRows(db, principal, doomed);
  return { object: "batch_delete_result" as const, deleted: doomed.map((r) => r.id), failed };
}

export const uploadLimitBytes = () => env.BUCKET_UPLOAD_MAX_BYTES;
