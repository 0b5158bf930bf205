import fs from "node:fs";
import type { Jwks } from "@/lib/trust/jwk";
import { pagesOf, type VerifyReport, verifyAuditExport } from "./verify";

/**
 * The offline verifier's command (`npm run svc -- compliance verify <file>` and
 * `scripts/verify-audit-export.ts`): reads an export (one page `{rows, manifest, pagination}`, an
 * array of pages in order, or `{pages: [...]}`), the JWKS (--jwks file or URL, else
 * `<manifest.issuer>/v1/agents/jwks`) and deletion certificates (--certificate, repeatable), and
 * prints the report. Exit status: 0 verified, 1 problems found, 2 usage or input error. Imports
 * nothing but the pure verifier (no database, no server configuration).
 */

export interface VerifyOptions {
  jwks?: string;
  certificates?: string[];
  requireExplainedGaps?: boolean;
  json?: boolean;
}

export interface VerifyIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

class InputError extends Error {}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw new InputError(`cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function loadJwks(source: string): Promise<Jwks> {
  let value: unknown;
  if (/^https?:\/\//.test(source)) {
    const res = await fetch(source, { redirect: "error", signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new InputError(`JWKS ${source}: HTTP ${res.status}`);
    value = await res.json();
  } else value = readJson(source);
  if (!value || typeof value !== "object" || !Array.isArray((value as Jwks).keys))
    throw new InputError(`${source} is not a JWKS ({keys: [...]})`);
  return value as Jwks;
}

/** The report in words, one line per finding. */
export function describeReport(report: VerifyReport): string {
  const out: string[] = [];
  out.push(
    `${report.ok ? "VERIFIED" : "FAILED"}: ${report.rowCount} rows in ${report.pageCount} page(s), organization ${report.userId ?? "?"}, positions ${report.firstChainSeq ?? "-"}..${report.lastChainSeq ?? "-"}`,
  );
  for (const m of report.manifests) out.push(`  manifest ${m.page}: signature ${m.signature} (kid ${m.kid ?? "-"})`);
  for (const c of report.certificates)
    out.push(`  certificate ${c.index}: signature ${c.signature}, ${c.erasedPositions} erased position(s)`);
  if (report.head)
    out.push(`  chain head ${report.head.chainSeq}: ${report.head.reached ? "reached" : "not in this export"}`);
  for (const g of report.gaps)
    out.push(
      `  gap ${g.fromChainSeq}..${g.toChainSeq}: ${g.explained ? "erased (certified)" : "no certificate given"}`,
    );
  for (const p of report.problems)
    out.push(
      `  problem${p.page !== null ? ` (page ${p.page})` : ""}${p.chainSeq !== null ? ` at ${p.chainSeq}` : ""}: ${p.message}`,
    );
  return `${out.join("\n")}\n`;
}

/** Runs the verifier on `file`; returns the exit status. */
export async function runVerify(file: string, opts: VerifyOptions, io: VerifyIo): Promise<number> {
  try {
    const input = readJson(file);
    let source = opts.jwks;
    if (!source) {
      const issuer = (pagesOf(input)[0]?.manifest as { issuer?: unknown } | undefined)?.issuer;
      if (typeof issuer !== "string") throw new InputError("no --jwks given and the manifest names no issuer");
      source = `${issuer.replace(/\/+$/, "")}/v1/agents/jwks`;
    }
    const certificates = (opts.certificates ?? []).map(readJson);
    const report = verifyAuditExport(input, {
      jwks: await loadJwks(source),
      certificates,
      requireExplainedGaps: opts.requireExplainedGaps ?? false,
    });
    io.out(opts.json ? `${JSON.stringify(report, null, 2)}\n` : describeReport(report));
    return report.ok ? 0 : 1;
  } catch (e) {
    io.err(`${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
}
