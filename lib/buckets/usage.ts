import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { messages } from "@/db/schema";
import { scanner, type ScannerInfo } from "@/lib/providers/scanner";
import { storageBackend } from "@/lib/providers/storage";
import { storageFigures } from "./service";
import { storedBytes } from "./uploads";

/** What the scanner reports, or that it did not answer within two seconds. */
async function scannerInfo(): Promise<ScannerInfo> {
  const s = scanner();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ScannerInfo>((resolve) => {
    timer = setTimeout(() => resolve({ kind: s.kind, version: null, detail: "did not answer within 2 s" }), 2000);
  });
  try {
    return await Promise.race([s.describe(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The organization's stored bytes for whoami, summed from the rows that own them: message bodies
 * (a message's size less its attachments), attachments, and finalized bucket files. No file has an
 * expiry in this deployment, so `expiringFileBytes` is 0.
 */
export async function storageUsage(db: DbOrTx, orgId: string) {
  const [[mail], stored, figures, info] = await Promise.all([
    db.select({ bytes: sql<string>`coalesce(sum(${messages.sizeBytes}), 0)` }).from(messages).where(eq(messages.orgId, orgId)),
    storedBytes(db, orgId),
    storageFigures(db, orgId),
    scannerInfo(),
  ]);
  return {
    breakdown: {
      mailBodyBytes: Math.max(0, Number(mail?.bytes ?? 0) - stored.attachments),
      attachmentBytes: stored.attachments,
      fileBytes: stored.files,
      expiringFileBytes: 0,
      activeFileObjects: figures.activeFileObjects,
    },
    backend: storageBackend(),
    scanner: info,
  };
}
