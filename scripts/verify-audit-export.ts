/**
 * Offline verifier of an audit export (`GET /v1/audit-logs/export` pages saved as JSON).
 *
 *   npx tsx scripts/verify-audit-export.ts <export.json> [--jwks <file|url>] [--certificate <file>]…
 *                                          [--require-explained-gaps] [--json]
 *
 * <export.json> holds one page (`{rows, manifest, pagination}`), an array of pages in order, or
 * `{pages: [...]}`. The JWKS comes from --jwks (a file for a fully offline check, or a URL), else
 * from `<manifest.issuer>/v1/agents/jwks`. Certificates (signed deletion certificates) explain gaps
 * left by erasures. Exit status: 0 verified, 1 problems found, 2 usage or input error.
 * Imports nothing but the pure verifier (no database, no server configuration).
 */
import fs from "node:fs";
import { pagesOf, verifyAuditExport } from "@/lib/compliance/verify";
import type { Jwks } from "@/lib/trust/jwk";

function usage(message?: string): never {
  if (message) process.stderr.write(`${message}\n`);
  process.stderr.write("usage: verify-audit-export <export.json> [--jwks <file|url>] [--certificate <file>]... [--require-explained-gaps] [--json]\n");
  process.exit(2);
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    usage(`cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function loadJwks(source: string): Promise<Jwks> {
  let value: unknown;
  if (/^https?:\/\//.test(source)) {
    const res = await fetch(source, { redirect: "error", signal: AbortSignal.timeout(10_000) });
    if (!res.ok) usage(`JWKS ${source}: HTTP ${res.status}`);
    value = await res.json();
  } else value = readJson(source);
  if (!value || typeof value !== "object" || !Array.isArray((value as Jwks).keys)) usage(`${source} is not a JWKS ({keys: [...]})`);
  return value as Jwks;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let file: string | undefined;
  let jwksSource: string | undefined;
  const certificates: unknown[] = [];
  let json = false;
  let strictGaps = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--jwks") jwksSource = args[++i] ?? usage("--jwks needs a value");
    else if (a === "--certificate") certificates.push(readJson(args[++i] ?? usage("--certificate needs a value")));
    else if (a === "--json") json = true;
    else if (a === "--require-explained-gaps") strictGaps = true;
    else if (a === "--help" || a === "-h") usage();
    else if (a?.startsWith("--")) usage(`unknown option ${a}`);
    else if (!file) file = a;
    else usage("one export file at a time");
  }
  if (!file) usage();
  const input = readJson(file);
  if (!jwksSource) {
    const issuer = (pagesOf(input)[0]?.manifest as { issuer?: unknown } | undefined)?.issuer;
    if (typeof issuer !== "string") usage("no --jwks given and the manifest names no issuer");
    jwksSource = `${issuer.replace(/\/+$/, "")}/v1/agents/jwks`;
  }
  const report = verifyAuditExport(input, { jwks: await loadJwks(jwksSource), certificates, requireExplainedGaps: strictGaps });
  if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    const out: string[] = [];
    out.push(`${report.ok ? "VERIFIED" : "FAILED"}: ${report.rowCount} rows in ${report.pageCount} page(s), organization ${report.userId ?? "?"}, positions ${report.firstChainSeq ?? "-"}..${report.lastChainSeq ?? "-"}`);
    for (const m of report.manifests) out.push(`  manifest ${m.page}: signature ${m.signature} (kid ${m.kid ?? "-"})`);
    for (const c of report.certificates) out.push(`  certificate ${c.index}: signature ${c.signature}, ${c.erasedPositions} erased position(s)`);
    if (report.head) out.push(`  chain head ${report.head.chainSeq}: ${report.head.reached ? "reached" : "not in this export"}`);
    for (const g of report.gaps) out.push(`  gap ${g.fromChainSeq}..${g.toChainSeq}: ${g.explained ? "erased (certified)" : "no certificate given"}`);
    for (const p of report.problems) out.push(`  problem${p.page !== null ? ` (page ${p.page})` : ""}${p.chainSeq !== null ? ` at ${p.chainSeq}` : ""}: ${p.message}`);
    process.stdout.write(`${out.join("\n")}\n`);
  }
  process.exit(report.ok ? 0 : 1);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
});
