import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { bucketObjects, buckets } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { notFound } from "@/lib/core/errors";
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
  const [row] = await db
    .select()
    .from(buckets)
    .where(and(eq(buckets.orgId, orgId), eq(buckets.kind, kind)));
  if (!row) throw new Error(`organization ${orgId} has no ${kind} bucket`);
  return row;
}

export async function usage(
  db: DbOrTx,
  orgId: string,
  bucketIds: string[],
): Promise<Map<string, { bytes: number; count: number }>> {
  if (bucketIds.length === 0) return new Map();
  const rows = await db
    .select({
      bucketId: bucketObjects.bucketId,
      bytes: sql<string>`coalesce(sum(${bucketObjects.bytes}), 0)`,
      count: sql<string>`count(*)`,
    })
    .from(bucketObjects)
    .where(and(eq(bucketObjects.orgId, orgId), inArray(bucketObjects.bucketId, bucketIds), finalized))
    .groupBy(bucketObjects.bucketId);
  return new Map(rows.map((r) => [r.bucketId, { bytes: Number(r.bytes), count: Number(r.count) }]));
}

export function toBucket(row: BucketRow, u: { bytes: number; count: number } | undefined): Bucket {
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

export async function bucketWithUsage(db: DbOrTx, row: BucketRow): Promise<Bucket> {
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
  const [row] = uuid
    ? await db
        .select()
        .from(buckets)
        .where(and(eq(buckets.orgId, principal.orgId), eq(buckets.id, uuid)))
    : [];
  if (!row) throw notFound("bucket", "bucketId");
  return row;
}

/** A finalized object of the bucket (an upload in progress is found only with `uploading`). */
export async function findObject(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
  objectId: string,
  opts: { uploading?: boolean } = {},
): Promise<ObjectRow> {
  const bucket = await findBucket(db, principal, bucketId);
  const [row] = await db
    .select()
    .from(bucketObjects)
    .where(
      and(
        eq(bucketObjects.orgId, principal.orgId),
        eq(bucketObjects.bucketId, bucket.id),
        eq(bucketObjects.id, objectId),
      ),
    );
  if (!row || (row.state === "uploading" && !opts.uploading)) throw notFound("object", "objectId");
  return row;
}

export interface BucketFields {
  displayName?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
}
