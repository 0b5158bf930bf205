import { and, asc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { bucketObjects, buckets } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { ApiError, notFound, notPermitted } from "@/lib/core/errors";
import { storage } from "@/lib/providers/storage";
import {
  type Bucket,
  type BucketFields,
  bucketWithUsage,
  ensureBuckets,
  finalized,
  findBucket,
  toBucket,
  usage,
} from "./bucket";

export async function listBuckets(db: DbOrTx, principal: Principal) {
  await ensureBuckets(db, principal.orgId);
  const rows = await db
    .select()
    .from(buckets)
    .where(eq(buckets.orgId, principal.orgId))
    .orderBy(
      sql`case ${buckets.kind} when 'default' then 0 when 'inbound' then 1 else 2 end`,
      asc(buckets.createdAt),
      asc(buckets.id),
    );
  const u = await usage(
    db,
    principal.orgId,
    rows.map((r) => r.id),
  );
  return {
    object: "list" as const,
    data: rows.map((r) => toBucket(r, u.get(r.id))),
    pagination: { nextCursor: null, hasMore: false },
  };
}

export async function createBucket(
  db: DbOrTx,
  principal: Principal,
  input: BucketFields & { name: string },
): Promise<Bucket> {
  await ensureBuckets(db, principal.orgId);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(buckets)
      .values({
        orgId: principal.orgId,
        name: input.name,
        kind: "custom",
        displayName: input.displayName ?? null,
        description: input.description ?? null,
        metadata: input.metadata ?? null,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new ApiError("conflict", `A bucket named ${input.name} already exists.`, "name");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "bucket.created",
      resourceType: "bucket",
      resourceId: row.id,
      metadata: { name: row.name },
    });
    return toBucket(row, undefined);
  });
}

export async function getBucket(db: DbOrTx, principal: Principal, bucketId: string): Promise<Bucket> {
  return bucketWithUsage(db, await findBucket(db, principal, bucketId));
}

export async function updateBucket(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
  input: BucketFields & { status?: "active" | "archived" },
): Promise<Bucket> {
  const row = await findBucket(db, principal, bucketId);
  if (input.status === "archived" && row.kind !== "custom")
    throw notPermitted("The default and the inbound bucket cannot be archived.", "status");
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
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "bucket.updated",
      resourceType: "bucket",
      resourceId: row.id,
      metadata: { fields: Object.keys(input) },
    });
    return bucketWithUsage(tx, updated);
  });
}

export async function deleteBucket(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
): Promise<{ deleted: true; id: string }> {
  const row = await findBucket(db, principal, bucketId);
  if (row.kind !== "custom") throw notPermitted(`The ${row.kind} bucket cannot be deleted.`, "bucketId");
  const pending: string[] = [];
  await db.transaction(async (tx) => {
    const [used] = await tx
      .select({ id: bucketObjects.id })
      .from(bucketObjects)
      .where(and(eq(bucketObjects.bucketId, row.id), finalized))
      .limit(1);
    if (used) throw new ApiError("conflict", "The bucket still has objects; delete them first.", "bucketId");
    // Uploads never finalized: their keys go with the bucket.
    const claims = await tx
      .delete(bucketObjects)
      .where(eq(bucketObjects.bucketId, row.id))
      .returning({ key: bucketObjects.storageKey });
    pending.push(...claims.map((c) => c.key));
    await tx.delete(buckets).where(eq(buckets.id, row.id));
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "bucket.deleted",
      resourceType: "bucket",
      resourceId: row.id,
      metadata: { name: row.name },
    });
  });
  for (const key of pending) await storage().delete(key);
  return { deleted: true, id: bucketId };
}
