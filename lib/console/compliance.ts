import { EXPORT_PAGES_MAX } from "@/components/console/config/limits";
import { exportAuditLogs } from "@/lib/compliance/operations";
import { describeReport } from "@/lib/compliance/verify-command";
import { verifyAuditExport } from "@/lib/compliance/verify";
import { invalidRequest } from "@/lib/core/errors";
import type { OperationOutput } from "@/lib/core/operation";
import type { Jwks } from "@/lib/trust/jwk";
import type { ConsoleContext, ConsoleInvoke } from "./context";
import { complianceJobs } from "./reads";

/**
 * The compliance page's export and verification: the audit chain read through the export
 * operation page by page, and checked with the offline verifier the CLI uses.
 */

export type ExportPage = OperationOutput<typeof exportAuditLogs>;

/** The chain from `first` (else from the start) onward, page by page, at most EXPORT_PAGES_MAX pages. */
export async function exportChain(
  invoke: ConsoleInvoke,
  first?: ExportPage,
): Promise<{ pages: ExportPage[]; complete: boolean }> {
  const pages = [first ?? (await invoke(exportAuditLogs, { query: {} }))];
  let next = pages[0]?.pagination.nextCursor ?? null;
  while (next !== null && pages.length < EXPORT_PAGES_MAX) {
    const page = await invoke(exportAuditLogs, { query: { cursor: String(next) } });
    pages.push(page);
    next = page.pagination.nextCursor;
  }
  return { pages, complete: next === null };
}

/**
 * Verifies `file` (an export's JSON text: one page, an array of pages or `{pages}`), else the chain
 * exported now, against `jwks` and the certificates of the organization's completed erasures and
 * purges (which explain the gaps they left). The report, and its lines in words as the CLI prints them.
 */
export async function verifyAuditChain(ctx: ConsoleContext, jwks: Jwks, file?: string) {
  let exported: unknown;
  if (file !== undefined) {
    try {
      exported = JSON.parse(file);
    } catch {
      throw invalidRequest(
        "The file is not JSON: choose an export downloaded from this page or from GET /v1/audit-logs/export.",
        "file",
      );
    }
  } else exported = (await exportChain(ctx.invoke)).pages;
  const certificates = (await complianceJobs(ctx)).flatMap((j) => (j.certificate ? [j.certificate] : []));
  const report = verifyAuditExport(exported, { jwks, certificates });
  return {
    source: file !== undefined ? ("file" as const) : ("now" as const),
    report,
    lines: describeReport(report).trimEnd().split("\n"),
  };
}
