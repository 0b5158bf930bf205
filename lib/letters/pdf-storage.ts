import { inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { letters } from "@/db/schema";
import type { StorageOwner } from "@/lib/providers/storage/sweep";

/**
 * The letters' stored PDFs, for the hourly storage sweep (lib/buckets/sweep.ts): a letter's PDF
 * (`letters/<org>/<letterId>.pdf`, stored before the transaction that records the letter, so a
 * refused send — `spend_cap_reached`, a crash — or a batch item that failed leaves it behind) is
 * owned while a letter row names it; a template preview (`letters/<org>/previews/<uuidv7>.pdf`,
 * never recorded) while its signed URL may still be used: its id's timestamp plus
 * `PREVIEW_URL_SECONDS`. Anything else under `letters/` is owned by no one. The sweep only looks at
 * bytes older than STORAGE_ORPHAN_GRACE_SECONDS, so a letter whose transaction is about to commit
 * is never touched.
 */

/** A stored template preview's URL lifetime (`pdfUrlExpiresInSeconds`); the sweep keeps it as long. */
export const PREVIEW_URL_SECONDS = 900;
export const previewPdfKey = (orgId: string, previewId: string) => `letters/${orgId}/previews/${previewId}.pdf`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The millisecond timestamp of a UUID version 7, or null for another id. */
function uuidv7Time(id: string): number | null {
  if (!UUID.test(id) || id[14] !== "7") return null;
  return Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16);
}

export function letterPdfStorageOwner(db: DbOrTx, now = new Date()): StorageOwner {
  return {
    prefix: "letters/",
    async owned(keys) {
      const keep = new Set<string>();
      const letterIds: string[] = [];
      for (const key of keys) {
        const parts = key.split("/");
        const name = parts.at(-1) ?? "";
        const id = name.endsWith(".pdf") ? name.slice(0, -4) : "";
        if (parts.length === 4 && parts[2] === "previews") {
          const made = uuidv7Time(id);
          if (made !== null && made + PREVIEW_URL_SECONDS * 1000 > now.getTime()) keep.add(key);
        } else if (parts.length === 3 && UUID.test(id)) letterIds.push(id);
      }
      if (letterIds.length > 0) {
        // By primary key (the file is named after its letter), then the row's own key must match.
        const rows = await db.select({ key: letters.pdfKey }).from(letters).where(inArray(letters.id, letterIds));
        for (const r of rows) keep.add(r.key);
      }
      return keep;
    },
  };
}
