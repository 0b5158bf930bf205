import { verifyArtifact } from "@/lib/trust/artifact";
import { jcs, sha256Hex } from "@/lib/trust/jcs";
import type { Jwks } from "@/lib/trust/jwk";
import { isHash, rowHashOf } from "./chain-format";

/**
 * The offline verifier of audit exports (pure: no database, no environment; the console, the
 * tests and `scripts/verify-audit-export.ts` use it). Given export pages in order, the JWKS and
 * optionally signed deletion certificates, it checks:
 *   - every row's `rowHash` recomputed from its fields and `prevHash`;
 *   - positions strictly increasing; each row's `prevHash` is its predecessor's `rowHash`, and the
 *     row at position 1 has `prevHash` "";
 *   - gaps (missing positions): reported; a gap whose positions a valid deletion certificate lists
 *     (`erasedAuditRows`: `{chainSeq, prevHash, rowHash}`) is "explained" and linked across;
 *   - each page's manifest: signature (Ed25519 over JCS, key by `kid` in the JWKS), type, row
 *     count, first and last position, `rowsSha256`, one organization throughout;
 *   - the head: with no upper time bound, the last page must end at the manifest's chain head
 *     (`headChainSeq`/`headRowHash`), else rows were cut off the end.
 */

export interface ErasedPosition {
  chainSeq: number;
  prevHash: string;
  rowHash: string;
}

export interface VerifyProblem {
  page: number | null;
  chainSeq: number | null;
  message: string;
}

export interface ChainGap {
  fromChainSeq: number;
  toChainSeq: number;
  explained: boolean;
}

export interface VerifyReport {
  ok: boolean;
  pageCount: number;
  rowCount: number;
  userId: string | null;
  firstChainSeq: number | null;
  lastChainSeq: number | null;
  gaps: ChainGap[];
  manifests: {
    page: number;
    kid: string | null;
    signature: "valid" | "unsigned" | "malformed" | "unknown_key" | "bad_signature";
  }[];
  certificates: {
    index: number;
    kid: string | null;
    signature: "valid" | "unsigned" | "malformed" | "unknown_key" | "bad_signature";
    erasedPositions: number;
  }[];
  head: { chainSeq: number; rowHash: string; reached: boolean } | null;
  problems: VerifyProblem[];
}

export interface VerifyOptions {
  jwks: Jwks;
  certificates?: unknown[];
  /** Treat gaps no certificate explains as problems (default: reported only). */
  requireExplainedGaps?: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Pages from what a file may hold: one page, an array of pages, or `{pages: [...]}`. */
export function pagesOf(input: unknown): Obj[] {
  if (Array.isArray(input)) return input.filter(isObj);
  if (isObj(input) && Array.isArray(input.pages)) return input.pages.filter(isObj);
  if (isObj(input)) return [input];
  return [];
}

export function verifyAuditExport(input: unknown, options: VerifyOptions): VerifyReport {
  const pages = pagesOf(input);
  const problems: VerifyProblem[] = [];
  const problem = (page: number | null, chainSeq: number | null, message: string) =>
    problems.push({ page, chainSeq, message });
  const report: VerifyReport = {
    ok: false,
    pageCount: pages.length,
    rowCount: 0,
    userId: null,
    firstChainSeq: null,
    lastChainSeq: null,
    gaps: [],
    manifests: [],
    certificates: [],
    head: null,
    problems,
  };
  if (pages.length === 0) problem(null, null, "no export pages found");

  // Erased positions from certificates whose signature holds.
  const erased = new Map<number, ErasedPosition>();
  (options.certificates ?? []).forEach((cert, index) => {
    const check = verifyArtifact(cert, options.jwks);
    const list = isObj(cert) && Array.isArray(cert.erasedAuditRows) ? cert.erasedAuditRows : [];
    report.certificates.push({
      index,
      kid: check.kid,
      signature: check.valid ? "valid" : check.reason,
      erasedPositions: list.length,
    });
    if (!check.valid) {
      problem(null, null, `certificate ${index}: signature ${check.reason}`);
      return;
    }
    for (const e of list)
      if (isObj(e) && typeof e.chainSeq === "number" && typeof e.prevHash === "string" && isHash(e.rowHash))
        erased.set(e.chainSeq, { chainSeq: e.chainSeq, prevHash: e.prevHash, rowHash: e.rowHash });
  });

  let prev: { chainSeq: number; rowHash: string } | null = null;
  let lastManifest: Obj | null = null;
  let lastPage: Obj | null = null;

  pages.forEach((page, p) => {
    const rows = Array.isArray(page.rows) ? page.rows : null;
    if (!rows) {
      problem(p, null, "page has no rows array");
      return;
    }
    // Manifest.
    const manifest = isObj(page.manifest) ? page.manifest : null;
    if (!manifest) problem(p, null, "page has no manifest");
    else {
      const check = verifyArtifact(manifest, options.jwks);
      report.manifests.push({ page: p, kid: check.kid, signature: check.valid ? "valid" : check.reason });
      if (!check.valid) problem(p, null, `manifest signature: ${check.reason}`);
      if (manifest.type !== "svc.audit.manifest.v1") problem(p, null, `manifest type ${String(manifest.type)}`);
      if (manifest.rowCount !== rows.length)
        problem(p, null, `manifest rowCount ${String(manifest.rowCount)} but the page has ${rows.length} rows`);
      const firstRow = rows[0] as Obj | undefined;
      const lastRow = rows[rows.length - 1] as Obj | undefined;
      if (manifest.fromChainSeq !== (firstRow?.chainSeq ?? null))
        problem(p, null, "manifest fromChainSeq does not match the first row");
      if (manifest.toChainSeq !== (lastRow?.chainSeq ?? null))
        problem(p, null, "manifest toChainSeq does not match the last row");
      let digest: string | null = null;
      try {
        digest = sha256Hex(jcs(rows));
      } catch {
        problem(p, null, "rows cannot be canonicalized");
      }
      if (digest !== null && manifest.rowsSha256 !== digest)
        problem(p, null, "manifest rowsSha256 does not match the rows (rows added, removed, reordered or changed)");
      if (typeof manifest.userId === "string") {
        if (report.userId === null) report.userId = manifest.userId;
        else if (report.userId !== manifest.userId) problem(p, null, "pages of different organizations");
      }
      lastManifest = manifest;
    }
    lastPage = page;

    // Rows.
    for (const raw of rows) {
      report.rowCount++;
      if (!isObj(raw)) {
        problem(p, null, "row is not an object");
        continue;
      }
      const seq = raw.chainSeq;
      if (typeof seq !== "number" || !Number.isInteger(seq) || seq < 1) {
        problem(p, null, `row ${String(raw.id)}: chainSeq is not a positive integer`);
        continue;
      }
      if (report.userId !== null && raw.userId !== report.userId) problem(p, seq, "row of another organization");
      const prevHash = raw.prevHash;
      const rowHash = raw.rowHash;
      if (typeof prevHash !== "string" || (prevHash !== "" && !isHash(prevHash)) || !isHash(rowHash)) {
        problem(p, seq, "prevHash or rowHash malformed");
        continue;
      }
      let recomputed: string | null = null;
      try {
        recomputed = rowHashOf(prevHash, raw);
      } catch {
        problem(p, seq, "row cannot be canonicalized");
      }
      if (recomputed !== null && recomputed !== rowHash)
        problem(p, seq, "rowHash does not match the row (the row was changed)");
      if (seq === 1 && prevHash !== "") problem(p, seq, 'the first row\'s prevHash must be ""');
      report.firstChainSeq ??= seq;
      if (prev) {
        if (seq <= prev.chainSeq)
          problem(p, seq, `position ${seq} after ${prev.chainSeq}: out of order or repeated (a fork)`);
        else if (seq === prev.chainSeq + 1) {
          if (prevHash !== prev.rowHash)
            problem(p, seq, "prevHash is not the previous row's rowHash (the chain is broken)");
        } else {
          // A gap: bridge it through erased positions when every one of them is certified.
          let link = prev.rowHash;
          let explained = true;
          for (let s = prev.chainSeq + 1; s < seq; s++) {
            const e = erased.get(s);
            if (!e) {
              explained = false;
              break;
            }
            if (e.prevHash !== link) problem(p, s, "certified erased row does not link to its predecessor");
            link = e.rowHash;
          }
          report.gaps.push({ fromChainSeq: prev.chainSeq + 1, toChainSeq: seq - 1, explained });
          if (explained && prevHash !== link) problem(p, seq, "prevHash does not link across the erased rows");
          if (!explained && options.requireExplainedGaps)
            problem(p, seq, `positions ${prev.chainSeq + 1}..${seq - 1} are missing and no certificate erased them`);
        }
      }
      if (!prev || seq > prev.chainSeq) prev = { chainSeq: seq, rowHash };
      report.lastChainSeq = seq;
    }
  });

  // The head: a complete export (no upper time bound, last page) ends at it.
  const m = lastManifest as Obj | null;
  if (m && typeof m.headChainSeq === "number" && typeof m.headRowHash === "string") {
    const head = { chainSeq: m.headChainSeq, rowHash: m.headRowHash, reached: false };
    const last = prev as { chainSeq: number; rowHash: string } | null;
    if (last && last.chainSeq === head.chainSeq) {
      head.reached = true;
      if (last.rowHash !== head.rowHash)
        problem(null, last.chainSeq, "the last row is not the chain head the manifest names");
    } else if (last && last.chainSeq < head.chainSeq) {
      let link = last.rowHash;
      let bridged = true;
      for (let s = last.chainSeq + 1; s <= head.chainSeq; s++) {
        const e = erased.get(s);
        if (!e || e.prevHash !== link) {
          bridged = false;
          break;
        }
        link = e.rowHash;
      }
      head.reached = bridged && link === head.rowHash;
      const finalPage = lastPage as Obj | null;
      const moreToCome = isObj(finalPage?.pagination) && finalPage.pagination.nextCursor != null;
      if (!head.reached && m.to === null && !moreToCome)
        problem(
          null,
          last.chainSeq,
          `the export ends at position ${last.chainSeq} but the chain head is ${head.chainSeq} (rows missing at the end)`,
        );
    } else if (last && last.chainSeq > head.chainSeq)
      problem(null, last.chainSeq, "rows beyond the chain head the manifest names");
    report.head = head;
  }

  report.ok = problems.length === 0;
  return report;
}
