import { and, asc, eq, gt, gte, isNotNull, lte, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { auditLogs } from "@/db/schema";
import { jcs, sha256Hex } from "@/lib/trust/jcs";
import { signArtifact } from "@/lib/trust/keys";
import type { Signed } from "@/lib/trust/artifact";
import { chainHead, chainRowOf } from "./chain";
import type { ExportRow } from "./chain-format";

/** Rows per export page (the specification's cap). */
export const EXPORT_PAGE_MAX = 5000;

export const MANIFEST_TYPE = "svc.audit.manifest.v1";

/**
 * AuditExportManifest: the specification's fields, plus
 *   `from`, `to`, `cursor`  the request's bounds (null when not given), so a page says what it answers;
 *   `rowsSha256`            hex SHA-256 of the JCS form of the page's `rows` array: the manifest commits
 *                           to the exact rows, gaps included.
 * `fromChainSeq`/`toChainSeq` are the first and last position on the page (null when it is empty);
 * `headChainSeq`/`headRowHash` are the organization's chain head when the page was read — on the
 * last page of a full export, the last row must be that head, which detects a cut-off tail.
 */
export type AuditManifest = Signed<{
  type: typeof MANIFEST_TYPE;
  issuer: string;
  userId: string;
  region: string;
  fromChainSeq: number | null;
  toChainSeq: number | null;
  rowCount: number;
  headChainSeq: number;
  headRowHash: string;
  exportedAt: string;
  from: string | null;
  to: string | null;
  cursor: number | null;
  rowsSha256: string;
}>;

export interface AuditExportPage {
  rows: ExportRow[];
  manifest: AuditManifest;
  pagination: { nextCursor: number | null };
}

export interface ExportInput {
  orgId: string;
  /** Inclusive bounds on `createdAt`. */
  from?: Date;
  to?: Date;
  /** The previous page's `nextCursor`: rows with a strictly greater `chainSeq`. */
  cursor?: number;
  limit?: number;
  issuer: string;
  region: string;
}

export function toExportRow(row: typeof auditLogs.$inferSelect): ExportRow {
  if (row.prevHash === null || row.rowHash === null) throw new Error(`audit row ${row.id} is not chained`);
  return { ...chainRowOf(row), prevHash: row.prevHash, rowHash: row.rowHash };
}

/** One page of the organization's chained audit rows with its signed manifest. */
export async function exportAuditPage(db: DbOrTx, input: ExportInput): Promise<AuditExportPage> {
  const limit = Math.min(Math.max(input.limit ?? EXPORT_PAGE_MAX, 1), EXPORT_PAGE_MAX);
  // Read the head first: every row up to it is chained (and rows written before chaining get linked).
  const head = await chainHead(db, input.orgId);
  const where: (SQL | undefined)[] = [
    eq(auditLogs.orgId, input.orgId),
    isNotNull(auditLogs.chainSeq),
    lte(auditLogs.chainSeq, head.chainSeq),
  ];
  if (input.cursor !== undefined) where.push(gt(auditLogs.chainSeq, input.cursor));
  if (input.from) where.push(gte(auditLogs.createdAt, input.from));
  if (input.to) where.push(lte(auditLogs.createdAt, input.to));
  const found = await db
    .select()
    .from(auditLogs)
    .where(and(...where))
    .orderBy(asc(auditLogs.chainSeq))
    .limit(limit + 1);
  const more = found.length > limit;
  const rows = found.slice(0, limit).map(toExportRow);
  const first = rows[0];
  const last = rows[rows.length - 1];
  const manifest = await signArtifact(db, {
    type: MANIFEST_TYPE,
    issuer: input.issuer,
    userId: input.orgId,
    region: input.region,
    fromChainSeq: first?.chainSeq ?? null,
    toChainSeq: last?.chainSeq ?? null,
    rowCount: rows.length,
    headChainSeq: head.chainSeq,
    headRowHash: head.rowHash,
    exportedAt: new Date().toISOString(),
    from: input.from?.toISOString() ?? null,
    to: input.to?.toISOString() ?? null,
    cursor: input.cursor ?? null,
    rowsSha256: sha256Hex(jcs(rows)),
  });
  return { rows, manifest: manifest as AuditManifest, pagination: { nextCursor: more && last ? last.chainSeq : null } };
}
