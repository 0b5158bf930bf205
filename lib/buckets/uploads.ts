import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { uuidv7 } from "@/db/ids";
import { bucketObjects } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { ApiError, notFound, notPermitted } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { storage } from "@/lib/providers/storage";
import { META_CONTENT_TYPE, META_FILENAME } from "@/lib/providers/storage/types";
import { requestScan } from "./scan";
import { type BucketObject, findBucket, findObject, toObject } from "./bucket";
import { lockStorage, overStorageLimit, quotaUsed } from "./usage";

const DEFAULT_UPLOAD_SECONDS = 3600;

/**
 * Step one of an upload: claims a storage key with an `uploading` row and returns the presigned
 * PUT (S3's own, or the app-served HMAC-signed URL of the filesystem backend) with the exact
 * headers to send. Nothing is listed until finalize; a declared `size` is reserved against the
 * storage limit while the upload is in progress, and finalize decides the limit for good.
 */
export async function createUpload(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
  input: { filename: string; contentType?: string; size?: number; expiresInSeconds?: number },
) {
  const bucket = await findBucket(db, principal, bucketId);
  if (bucket.kind === "inbound")
    throw notPermitted(
      "The inbound bucket holds inbound email attachments only; upload to another bucket.",
      "bucketId",
    );
  if (bucket.status !== "active") throw notPermitted("The bucket is archived; it takes no uploads.", "bucketId");
  const maxBytes = env.BUCKET_UPLOAD_MAX_BYTES;
  if (input.size !== undefined && input.size > maxBytes)
    throw new ApiError("payload_too_large", `Files are limited to ${maxBytes} bytes.`, "size");
  // The room left under STORAGE_LIMIT_BYTES: a sized upload must fit in it (and reserves its size);
  // one without `size` may send at most that much (its signed maximum). Finalize decides for good.
  const roomNow = env.STORAGE_LIMIT_BYTES - (await quotaUsed(db, principal.orgId));
  if (input.size !== undefined ? input.size > roomNow : roomNow <= 0)
    throw overStorageLimit(
      input.size !== undefined ? "This file" : "Another file",
      input.size !== undefined ? "size" : null,
    );
  const signedMax = input.size ?? Math.min(maxBytes, roomNow);
  const contentType = input.contentType ?? "application/octet-stream";
  const expiresInSeconds = input.expiresInSeconds ?? DEFAULT_UPLOAD_SECONDS;
  // Presigned before the transaction: the filesystem backend reads its signing secret from the database.
  const id = uuidv7();
  const key = `objects/${principal.orgId}/${id}`;
  const put = await storage().presignPut({
    key,
    contentType,
    filename: input.filename,
    expiresInSeconds,
    size: input.size,
    maxBytes: signedMax,
  });
  return db.transaction(async (tx) => {
    if (input.size !== undefined) {
      // The reservation is decided under the organization's storage lock, so parallel sized uploads cannot overbook.
      await lockStorage(tx, principal.orgId);
      if (input.size > env.STORAGE_LIMIT_BYTES - (await quotaUsed(tx, principal.orgId)))
        throw overStorageLimit("This file", "size");
    }
    await tx.insert(bucketObjects).values({
      id,
      orgId: principal.orgId,
      bucketId: bucket.id,
      filename: input.filename,
      contentType,
      bytes: input.size ?? 0,
      maxBytes: signedMax,
      storageKey: key,
      state: "uploading",
      uploadExpiresAt: put.expiresAt,
    });
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "bucket_object.upload_requested",
      resourceType: "bucket_object",
      resourceId: id,
      metadata: { filename: input.filename, size: input.size ?? null },
    });
    return {
      objectId: id,
      uploadUrl: put.url,
      method: "PUT" as const,
      headers: put.headers,
      expiresInSeconds,
      expiresAt: put.expiresAt.toISOString(),
    };
  });
}

function decodeFilename(raw: string | undefined, fallback: string): string {
  if (!raw) return fallback;
  try {
    const name = decodeURIComponent(raw);
    return name.length > 0 && name.length <= 255 && !name.includes("\0") ? name : fallback;
  } catch {
    return fallback;
  }
}

/**
 * Step two: the bytes are there, so the object is recorded (`pending`, its size as stored) and its
 * scan starts in the same transaction. Finalizing a finalized object answers it as it is.
 */
export async function finalizeObject(
  db: DbOrTx,
  principal: Principal,
  bucketId: string,
  objectId: string,
): Promise<BucketObject> {
  const row = await findObject(db, principal, bucketId, objectId, { uploading: true });
  if (row.state !== "uploading") {
    noAuditNeeded("already finalized");
    return toObject(row);
  }
  const info = await storage().head(row.storageKey);
  if (!info)
    throw new ApiError(
      "conflict",
      "Nothing was uploaded for this object yet: PUT the bytes to the upload URL first.",
      "objectId",
    );
  if (row.maxBytes !== null && info.size > row.maxBytes) {
    await storage().delete(row.storageKey);
    throw new ApiError(
      "payload_too_large",
      `The uploaded file is larger than the ${row.maxBytes} bytes this upload allowed; it was discarded.`,
      "objectId",
    );
  }
  const filename = decodeFilename(info.metadata[META_FILENAME], row.filename);
  const contentType = info.metadata[META_CONTENT_TYPE] || info.contentType || row.contentType;
  const after = await db.transaction(async (tx) => {
    // The storage limit, decided under the organization's storage lock so parallel finalizes take
    // turns: what is stored, plus other uploads' reservations, plus these bytes.
    await lockStorage(tx, principal.orgId);
    if ((await quotaUsed(tx, principal.orgId, row.id)) + info.size > env.STORAGE_LIMIT_BYTES) return null;
    const [updated] = await tx
      .update(bucketObjects)
      .set({ state: "pending", bytes: info.size, filename, contentType, finalizedAt: new Date() })
      .where(and(eq(bucketObjects.id, row.id), eq(bucketObjects.state, "uploading")))
      .returning();
    if (!updated) throw notFound("object", "objectId");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "bucket_object.finalized",
      resourceType: "bucket_object",
      resourceId: row.id,
      metadata: { bytes: info.size },
    });
    const publish = await requestScan(tx, [updated]);
    return { updated, publish };
  });
  if (!after) {
    await storage().delete(row.storageKey);
    throw overStorageLimit(`This file (${info.size} bytes) was discarded: it`, "objectId");
  }
  await after.publish();
  return toObject(after.updated);
}
