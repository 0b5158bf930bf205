import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { attachments, bucketObjects, messages, organizations } from "@/db/schema";
import { scanner, type ScannerInfo } from "@/lib/providers/scanner";
import { storageBackend } from "@/lib/providers/storage";

/** The scanner's description, kept for a minute (clamd answers VERSION over its socket). */
const SCANNER_INFO_TTL_MS = 60_000;
let cachedInfo: { at: number; info: Promise<ScannerInfo> } | null = null;
function scannerInfo(): Promise<ScannerInfo> {
  if (!cachedInfo || Date.now() - cachedInfo.at > SCANNER_INFO_TTL_MS)
    cachedInfo = { at: Date.now(), info: askScanner() };
  return cachedInfo.info;
}

/** What the scanner reports, or that it did not answer within two seconds. */
async function askScanner(): Promise<ScannerInfo> {
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

/** Sums of what the organization stores, each a scalar subquery over the rows that own the bytes. */
export const storageSums = (orgId: string) => ({
  messageBytes: sql<string>`(select coalesce(sum(${messages.sizeBytes}), 0) from ${messages} where ${messages.orgId} = ${orgId})`,
  attachments: sql<string>`(select coalesce(sum(${attachments.sizeBytes}), 0) from ${attachments} where ${attachments.orgId} = ${orgId})`,
  files: sql<string>`(select coalesce(sum(${bucketObjects.bytes}), 0) from ${bucketObjects} where ${bucketObjects.orgId} = ${orgId} and ${bucketObjects.attachmentId} is null and ${bucketObjects.state} <> 'uploading')`,
  activeFileObjects: sql<string>`(select count(*) from ${bucketObjects} where ${bucketObjects.orgId} = ${orgId} and ${bucketObjects.attachmentId} is null and ${bucketObjects.state} in ('pending', 'clean', 'skipped'))`,
});

/**
 * The organization's stored bytes in one statement: message sizes (bodies and attachments),
 * attachments, finalized bucket files (not stored attachments), and the count of live file objects.
 */
export async function storedFigures(
  db: DbOrTx,
  orgId: string,
): Promise<{ messageBytes: number; attachments: number; files: number; activeFileObjects: number }> {
  const [row] = await db.select(storageSums(orgId)).from(organizations).where(eq(organizations.id, orgId));
  return {
    messageBytes: Number(row?.messageBytes ?? 0),
    attachments: Number(row?.attachments ?? 0),
    files: Number(row?.files ?? 0),
    activeFileObjects: Number(row?.activeFileObjects ?? 0),
  };
}

/** Bytes the organization stores now as files and message attachments (an upload's quota check). */
export async function storedBytes(db: DbOrTx, orgId: string): Promise<{ files: number; attachments: number }> {
  const { files, attachments: attached } = storageSums(orgId);
  const [row] = await db
    .select({ files, attachments: attached })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return { files: Number(row?.files ?? 0), attachments: Number(row?.attachments ?? 0) };
}

type SumsRow = { [K in keyof ReturnType<typeof storageSums>]: string | number | null | undefined };

/**
 * The storage part of whoami from `storageSums`' row (selected in the caller's statement). No file
 * has an expiry in this deployment, so `expiringFileBytes` is 0.
 */
export async function storageUsageOf(sums: SumsRow) {
  const messageBytes = Number(sums.messageBytes ?? 0);
  const attached = Number(sums.attachments ?? 0);
  return {
    breakdown: {
      mailBodyBytes: Math.max(0, messageBytes - attached),
      attachmentBytes: attached,
      fileBytes: Number(sums.files ?? 0),
      expiringFileBytes: 0,
      activeFileObjects: Number(sums.activeFileObjects ?? 0),
    },
    backend: storageBackend(),
    scanner: await scannerInfo(),
  };
}
