import { and, eq, inArray, lt } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { bucketObjects } from "@/db/schema";
import { env } from "@/lib/env";
import { letterPdfStorageOwner } from "@/lib/letters/pdf-storage";
import { attachmentStorageOwner } from "@/lib/messages/attachments";
import { callRecordingStorageOwner } from "@/lib/phone/call-artifacts";
import { storage } from "@/lib/providers/storage";
import { filesystemBackend } from "@/lib/providers/storage";
import { type StorageOwner, type SweepResult, sweepOrphans } from "@/lib/providers/storage/sweep";
import { isUuid } from "@/lib/core/schemas";

/** Bucket objects' bytes live at `objects/<orgId>/<objectId>`; a row in any state claims its key. */
export function objectStorageOwner(db: DbOrTx): StorageOwner {
  return {
    prefix: "objects/",
    async owned(keys) {
      const ids = keys.map((k) => k.split("/").pop() ?? "").filter((id) => isUuid(id));
      if (ids.length === 0) return new Set();
      const rows = await db
        .select({ storageKey: bucketObjects.storageKey })
        .from(bucketObjects)
        .where(inArray(bucketObjects.id, ids));
      return new Set(rows.map((r) => r.storageKey));
    },
  };
}

/** Uploads never finalized: their claim ends a grace period after the upload URL expired. */
export async function dropAbandonedUploads(db: DbOrTx, graceSeconds: number, now = new Date()): Promise<number> {
  const rows = await db
    .delete(bucketObjects)
    .where(
      and(
        eq(bucketObjects.state, "uploading"),
        lt(bucketObjects.uploadExpiresAt, new Date(now.getTime() - graceSeconds * 1000)),
      ),
    )
    .returning({ id: bucketObjects.id });
  return rows.length;
}

/** Every owner of stored bytes the sweep walks (each prefix not listed here is left alone). */
export const storageOwners = (db: DbOrTx, now = new Date()): StorageOwner[] => [
  attachmentStorageOwner(db),
  objectStorageOwner(db),
  callRecordingStorageOwner(db),
  letterPdfStorageOwner(db, now),
];

/**
 * The hourly storage sweep (housekeeping): drops abandoned upload claims, then deletes stored bytes
 * no row owns once they are older than STORAGE_ORPHAN_GRACE_SECONDS, and the filesystem backend's
 * expired upload markers and abandoned temporary files.
 */
export async function sweepStoredBytes(
  db: DbOrTx,
  opts: { graceSeconds?: number; now?: Date } = {},
): Promise<SweepResult & { internal: number; abandonedUploads: number }> {
  const graceSeconds = opts.graceSeconds ?? env.STORAGE_ORPHAN_GRACE_SECONDS;
  const abandonedUploads = await dropAbandonedUploads(db, graceSeconds, opts.now);
  const result = await sweepOrphans(storage(), storageOwners(db, opts.now), {
    graceSeconds,
    now: opts.now,
  });
  const internal = (await filesystemBackend()?.sweepInternal(opts.now)) ?? 0;
  return { ...result, internal, abandonedUploads };
}
