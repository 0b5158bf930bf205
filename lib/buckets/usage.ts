import { eq, sql } from "drizzle-orm";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/core/errors";
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

/**
 * What counts against `STORAGE_LIMIT_BYTES` now: stored files and attachments, plus the bytes
 * reserved by uploads in progress (an upload created with `size` reserves it until it expires or is
 * finalized; one without `size` reserves nothing and is counted at finalize). `except` leaves one
 * upload's own reservation out (the one being finalized). Callers that decide hold `lockStorage`.
 */
export async function quotaUsed(db: DbOrTx, orgId: string, except: string | null = null): Promise<number> {
  const { files, attachments: attached } = storageSums(orgId);
  const reserved = sql<string>`(select coalesce(sum(${bucketObjects.bytes}), 0) from ${bucketObjects} where ${bucketObjects.orgId} = ${orgId} and ${bucketObjects.state} = 'uploading' and ${bucketObjects.uploadExpiresAt} > now()${except ? sql` and ${bucketObjects.id} <> ${except}` : sql``})`;
  const [row] = await db
    .select({ files, attachments: attached, reserved })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return Number(row?.files ?? 0) + Number(row?.attachments ?? 0) + Number(row?.reserved ?? 0);
}

/**
 * Serializes the storage-limit decisions of one organization (creating a sized upload, finalizing
 * any upload) until the transaction ends, so parallel requests cannot each see the same room.
 */
export async function lockStorage(tx: DbOrTx, orgId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`svc:storage:${orgId}`}))`);
}

/** The 413 for bytes over the storage limit. */
export function overStorageLimit(what: string, param: string | null): ApiError {
  return new ApiError(
    "payload_too_large",
    `${what} would exceed the organization's storage limit of ${env.STORAGE_LIMIT_BYTES} bytes.`,
    param,
  );
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
