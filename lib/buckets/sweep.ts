import type { DbOrTx } from "@/db";
import { env } from "@/lib/env";
import { attachmentStorageOwner } from "@/lib/messages/attachments";
import { storage } from "@/lib/providers/storage";
import { filesystemBackend } from "@/lib/providers/storage";
import { type SweepResult, sweepOrphans } from "@/lib/providers/storage/sweep";

/**
 * The hourly storage sweep (housekeeping): deletes stored bytes no row owns once they are older
 * than STORAGE_ORPHAN_GRACE_SECONDS, and the filesystem backend's expired upload markers and
 * abandoned temporary files.
 */
export async function sweepStoredBytes(db: DbOrTx, opts: { graceSeconds?: number; now?: Date } = {}): Promise<SweepResult & { internal: number }> {
  const result = await sweepOrphans(storage(), [attachmentStorageOwner(db)], { graceSeconds: opts.graceSeconds ?? env.STORAGE_ORPHAN_GRACE_SECONDS, now: opts.now });
  const internal = (await filesystemBackend()?.sweepInternal(opts.now)) ?? 0;
  return { ...result, internal };
}
