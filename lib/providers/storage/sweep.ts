import type { Storage } from "./types";

/**
 * Bytes that no database row owns are collected, not orphaned. Writers store bytes first and
 * commit the row that names them afterwards (inside their transaction), so a rollback, a crash
 * between the two, or a row deleted before its bytes leave bytes behind. The sweep walks each
 * owner's key prefix and deletes what its owner does not claim once it is older than the grace
 * period (longer than any transaction, so bytes whose row is about to commit are never touched).
 */
export interface StorageOwner {
  /** Key prefix this owner's bytes live under (`attachments/`). */
  prefix: string;
  /** The keys among `keys` that a row still names (or that are otherwise still wanted). */
  owned(keys: string[]): Promise<Set<string>>;
}

export interface SweepResult {
  scanned: number;
  deleted: number;
}

export async function sweepOrphans(
  store: Storage,
  owners: StorageOwner[],
  opts: { graceSeconds: number; now?: Date; batchSize?: number },
): Promise<SweepResult> {
  const cutoff = (opts.now ?? new Date()).getTime() - opts.graceSeconds * 1000;
  const batchSize = opts.batchSize ?? 500;
  const result: SweepResult = { scanned: 0, deleted: 0 };
  for (const owner of owners) {
    let batch: string[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const keep = await owner.owned(batch);
      for (const key of batch) {
        if (keep.has(key)) continue;
        await store.delete(key);
        result.deleted++;
      }
      batch = [];
    };
    for await (const obj of store.list(owner.prefix)) {
      result.scanned++;
      if (obj.lastModified.getTime() > cutoff) continue;
      batch.push(obj.key);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
  }
  return result;
}
