import { and, asc, type Column, eq, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { bucketObjects, buckets } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { decodeCursor, toPage } from "@/lib/core/pagination";
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

/** The list's order: the default bucket, the reserved inbound bucket, then the rest oldest first. */
const rankOf = (kind: SQL | Column) => sql`case ${kind} when 'default' then 0 when 'inbound' then 1 else 2 end`;
const bucketRank = rankOf(buckets.kind);

export async function listBuckets(db: DbOrTx, principal: Principal, query: { limit: number; cursor?: string }) {
  await ensureBuckets(db, principal.orgId);
  const after = decodeCursor(query.cursor);
  // Keyset over (rank, createdAt, id) ascending; the cursor carries createdAt and id, the rank is the cursor
  // bucket's own (2 once it is gone: the default and inbound buckets are never deleted).
  const rows = await db
    .select()
    .from(buckets)
    .where(
      and(
        eq(buckets.orgId, principal.orgId),
        after
          ? sql`(${bucketRank}, ${buckets.createdAt}, ${buckets.id}) > (coalesce((select ${rankOf(sql`b.kind`)} from ${buckets} b where b.id = ${after.id}::uuid), 2), ${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)`
          : undefined,
      ),
    )
    .orderBy(bucketRank, asc(buckets.createdAt), asc(buckets.id))
    .limit(query.limit + 1);
  const { items, pagination } = toPage(rows, query.limit);
  const u = await usage(
    db,
    principal.orgId,
    items.map((r) => r.id),
  );
  return { object: "list" as const, data: items.map((r) => toBucket(r, u.get(r.id))), pagination };
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
