import { and, desc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { bucketObjects } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { type ApiError, notFound, notPermitted } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { storage } from "@/lib/providers/storage";
import { bucketPublicId } from "./ids";
import {
  type BucketObject,
  finalized,
  findBucket,
  findObject,
  type ObjectRow,
  type ScanStatus,
  toObject,
} from "./bucket";

export async function listObjects(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
  query: { limit: number; cursor?: string; scanStatus?: ScanStatus },
) {
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

export async function getObject(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
  objectId: string,
): Promise<BucketObject> {
  return toObject(await findObject(db, principal, bucketId, objectId));
}

/** The owner's download URL; infected bytes are never served. */
export async function objectDownloadUrl(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
  objectId: string,
  expiresInSeconds: number,
) {
  const row = await findObject(db, principal, bucketId, objectId);
  if (row.state === "infected")
    throw notPermitted(`This object is infected (${row.scanSignature ?? "malware"}) and is never served.`, "objectId");
  const url = await storage().presignGet({
    key: row.storageKey,
    expiresInSeconds,
    filename: row.filename,
    contentType: row.contentType,
  });
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
      await recordAudit(tx, principal, {
        orgId: principal.orgId,
        action: "bucket_object.deleted",
        resourceType: "bucket_object",
        resourceId: r.id,
        metadata: { bucketId: bucketPublicId(r.bucketId), filename: r.filename },
      });
    }
  });
  // After the commit; bytes left by a crash here belong to no row and the storage sweep collects them.
  for (const r of rows) if (!r.attachmentId) await storage().delete(r.storageKey);
}

function refuseAttachmentObject(row: ObjectRow): ApiError | null {
  return row.attachmentId
    ? notPermitted("This object is an inbound email attachment; it goes when its message is deleted.", "objectId")
    : null;
}

export async function deleteObject(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
  objectId: string,
): Promise<{ deleted: true; id: string }> {
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
    .where(
      and(
        eq(bucketObjects.orgId, principal.orgId),
        eq(bucketObjects.bucketId, bucket.id),
        inArray(bucketObjects.id, ids),
        finalized,
      ),
    );
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
