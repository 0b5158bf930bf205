import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { afterAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { auditLogs } from "@/db/schema";
import { recordAudit } from "@/lib/core/audit";
import { appendChainedAudit, chainHead } from "@/lib/compliance/chain";
import { rowHashOf } from "@/lib/compliance/chain-format";
import { exportAuditPage, type AuditExportPage } from "@/lib/compliance/export";
import { verifyAuditExport } from "@/lib/compliance/verify";
import { jcs, sha256Hex } from "@/lib/trust/jcs";
import type { Jwks } from "@/lib/trust/jwk";
import { jwksKeyOf, listSigningKeys, signArtifact } from "@/lib/trust/keys";
import { newOrg } from "./harness";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "svc-chain-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const ISSUER = "https://svc.example.test";

async function jwks(): Promise<Jwks> {
  return { keys: (await listSigningKeys(await getDb())).map(jwksKeyOf) };
}

async function exportAll(orgId: string, limit = 5000): Promise<AuditExportPage[]> {
  const db = await getDb();
  const pages: AuditExportPage[] = [];
  let cursor: number | undefined;
  for (;;) {
    const page = await exportAuditPage(db, { orgId, cursor, limit, issuer: ISSUER, region: "local" });
    pages.push(page);
    if (page.pagination.nextCursor === null) return pages;
    cursor = page.pagination.nextCursor;
  }
}

async function write(orgId: string, n: number, meta: (i: number) => Record<string, unknown> = (i) => ({ i })) {
  const db = await getDb();
  for (let i = 0; i < n; i++)
    await appendChainedAudit(db, {
      orgId,
      action: "test.action",
      actor: "system:test",
      resourceType: "thing",
      resourceId: String(i),
      metadata: meta(i),
    });
}

describe("audit hash chain", () => {
  test("every audited change is chained when it is written (recordAudit)", async () => {
    const org = await newOrg();
    const db = await getDb();
    await recordAudit(db, { actor: "system:test", ip: null }, { orgId: org.orgId, action: "test.recorded" });
    const rows = await db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.orgId, org.orgId))
      .orderBy(asc(auditLogs.chainSeq));
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.map((r) => r.chainSeq)).toEqual(rows.map((_, i) => i + 1));
    expect(rows.at(-1)?.action).toBe("test.recorded");
  });

  test("rows written before chaining are linked first, in order; then every row links to the previous one", async () => {
    const org = await newOrg(); // bootstrap's audit rows are chained as they are written (recordAudit)
    const db = await getDb();
    // Rows as written before chaining existed: no chain columns, and no head row yet.
    await db.execute(sql`delete from audit_logs where org_id = ${org.orgId}`);
    await db.execute(sql`delete from audit_chain_heads where org_id = ${org.orgId}`);
    await db.insert(auditLogs).values([
      { orgId: org.orgId, action: "legacy.one", actor: "system:legacy", createdAt: new Date(Date.now() - 2000) },
      { orgId: org.orgId, action: "legacy.two", actor: "system:legacy", createdAt: new Date(Date.now() - 1000) },
    ]);
    const unchained = await db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.orgId, org.orgId), isNull(auditLogs.chainSeq)));
    expect(unchained.length).toBeGreaterThanOrEqual(2);
    await write(org.orgId, 3);
    const rows = await db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.orgId, org.orgId))
      .orderBy(asc(auditLogs.chainSeq));
    expect(rows.map((r) => r.chainSeq)).toEqual(rows.map((_, i) => i + 1));
    expect(
      rows
        .slice(0, unchained.length)
        .map((r) => r.id)
        .sort(),
    ).toEqual(unchained.map((r) => r.id).sort());
    expect(rows[0]?.prevHash).toBe("");
    for (let i = 1; i < rows.length; i++) {
      expect(rows[i]?.prevHash).toBe(rows[i - 1]?.rowHash);
      expect((rows[i]?.createdAt.getTime() ?? 0) >= (rows[i - 1]?.createdAt.getTime() ?? 0)).toBe(true);
    }
    const head = await chainHead(db, org.orgId);
    expect(head).toEqual({ chainSeq: rows.length, rowHash: rows[rows.length - 1]?.rowHash });

    const pages = await exportAll(org.orgId);
    expect(pages).toHaveLength(1);
    const [page] = pages;
    // rowHash is exactly hex SHA-256 of prevHash followed by the JCS of the row without the hashes.
    const first = page?.rows[0];
    if (!first) throw new Error("no rows");
    const { prevHash, rowHash, ...rest } = first;
    expect(rowHash).toBe(sha256Hex(prevHash + jcs(rest)));
    expect(Object.keys(rest).sort()).toEqual([
      "action",
      "actor",
      "agentId",
      "chainSeq",
      "createdAt",
      "id",
      "ip",
      "metadata",
      "resourceId",
      "resourceType",
      "userId",
    ]);
    expect(rest.userId).toBe(org.orgId);
    expect(page?.manifest).toMatchObject({
      type: "svc.audit.manifest.v1",
      issuer: ISSUER,
      userId: org.orgId,
      region: "local",
      fromChainSeq: 1,
      toChainSeq: rows.length,
      rowCount: rows.length,
      headChainSeq: rows.length,
      headRowHash: head.rowHash,
      alg: "EdDSA",
    });
    const report = verifyAuditExport(pages, { jwks: await jwks() });
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ ok: true, rowCount: rows.length, gaps: [], head: { reached: true } });
  });

  test("concurrent writers leave one contiguous chain with no fork", async () => {
    const org = await newOrg();
    const db = await getDb();
    await write(org.orgId, 1);
    const writers = 40;
    await Promise.all(
      Array.from({ length: writers }, (_, i) =>
        db.transaction(async (tx) => {
          await appendChainedAudit(tx, { orgId: org.orgId, action: "race", actor: "system:race", metadata: { i } });
        }),
      ),
    );
    const rows = await db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.orgId, org.orgId))
      .orderBy(asc(auditLogs.chainSeq));
    expect(rows.map((r) => r.chainSeq)).toEqual(rows.map((_, i) => i + 1));
    expect(new Set(rows.map((r) => r.prevHash)).size).toBe(rows.length); // no two rows share a predecessor
    expect(rows.filter((r) => r.action === "race")).toHaveLength(writers);
    const report = verifyAuditExport(await exportAll(org.orgId), { jwks: await jwks() });
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
  });

  test("a rolled-back change takes its audit row and its position with it", async () => {
    const org = await newOrg();
    const db = await getDb();
    await write(org.orgId, 2);
    await expect(
      db.transaction(async (tx) => {
        await appendChainedAudit(tx, { orgId: org.orgId, action: "doomed", actor: "system:test" });
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    const before = await chainHead(db, org.orgId);
    const next = await appendChainedAudit(db, { orgId: org.orgId, action: "after", actor: "system:test" });
    expect(next.chainSeq).toBe(before.chainSeq + 1);
    expect(next.prevHash).toBe(before.rowHash);
    expect(verifyAuditExport(await exportAll(org.orgId), { jwks: await jwks() }).ok).toBe(true);
  });

  test("values that are awkward in JSON are stored as they were hashed", async () => {
    const org = await newOrg();
    await write(org.orgId, 1, () => ({
      text: "a\u0000b \ud800 é 😀",
      n: [0.1, 1e21, -0, 2 ** 53 - 1],
      nested: { z: null, a: [true, false, {}] },
      when: new Date(0),
      gone: undefined,
    }));
    const report = verifyAuditExport(await exportAll(org.orgId), { jwks: await jwks() });
    expect(report.problems).toEqual([]);
  });

  test("pages of at most the limit, chainSeq cursors, and the whole export verifies", async () => {
    const org = await newOrg();
    await write(org.orgId, 12);
    const pages = await exportAll(org.orgId, 5);
    const total = pages.reduce((n, p) => n + p.rows.length, 0);
    expect(pages.length).toBe(Math.ceil(total / 5));
    expect(pages.every((p) => p.rows.length <= 5)).toBe(true);
    expect(pages[0]?.pagination.nextCursor).toBe(5);
    expect(pages[1]?.rows[0]?.chainSeq).toBe(6);
    expect(pages[1]?.manifest.cursor).toBe(5);
    expect(verifyAuditExport(pages, { jwks: await jwks() })).toMatchObject({
      ok: true,
      rowCount: total,
      pageCount: pages.length,
    });
    // Time bounds: rows inside [from, to] only.
    const db = await getDb();
    const mid = pages[1]?.rows[0];
    if (!mid) throw new Error("no row");
    const bounded = await exportAuditPage(db, {
      orgId: org.orgId,
      from: new Date(mid.createdAt),
      issuer: ISSUER,
      region: "local",
    });
    expect(bounded.rows.every((r) => r.createdAt >= mid.createdAt)).toBe(true);
    expect(bounded.manifest.from).toBe(mid.createdAt);
  });

  test("a row changed in the database, or in the export file, is detected", async () => {
    const org = await newOrg();
    const db = await getDb();
    await write(org.orgId, 6);
    const target = (
      await db
        .select()
        .from(auditLogs)
        .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.chainSeq, 4)))
    )[0];
    if (!target) throw new Error("no row 4");
    const keys = await jwks();

    // In the database (the export is signed over what is stored: the manifest holds, the chain does not).
    await db
      .update(auditLogs)
      .set({ metadata: { i: 999 } })
      .where(eq(auditLogs.id, target.id));
    const report = verifyAuditExport(await exportAll(org.orgId), { jwks: keys });
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      expect.objectContaining({ chainSeq: 4, message: expect.stringContaining("rowHash does not match") }),
    ]);
    // Recomputing the row's own hash does not help: the next row's prevHash no longer links.
    const forgedHash = rowHashOf(target.prevHash ?? "", { ...(await exportAll(org.orgId))[0]?.rows[3] });
    await db.update(auditLogs).set({ rowHash: forgedHash }).where(eq(auditLogs.id, target.id));
    const relinked = verifyAuditExport(await exportAll(org.orgId), { jwks: keys });
    expect(relinked.problems).toEqual([
      expect.objectContaining({ chainSeq: 5, message: expect.stringContaining("chain is broken") }),
    ]);
  });

  test("an export file edited after signing fails: rows, order, removal, manifest", async () => {
    const org = await newOrg();
    await write(org.orgId, 5);
    const keys = await jwks();
    const pages = await exportAll(org.orgId);
    const page = pages[0];
    if (!page) throw new Error("no page");
    const clone = (): AuditExportPage => JSON.parse(JSON.stringify(page));

    const edited = clone();
    (edited.rows[2] as { action: string }).action = "something.else";
    expect(verifyAuditExport(edited, { jwks: keys }).problems.map((p) => p.message)).toEqual(
      expect.arrayContaining([
        expect.stringContaining("rowsSha256"),
        expect.stringContaining("rowHash does not match"),
      ]),
    );

    const dropped = clone();
    dropped.rows.splice(2, 1);
    const dr = verifyAuditExport(dropped, { jwks: keys });
    expect(dr.ok).toBe(false);
    expect(dr.gaps).toEqual([{ fromChainSeq: 3, toChainSeq: 3, explained: false }]);

    const cut = clone();
    cut.rows.pop();
    expect(verifyAuditExport(cut, { jwks: keys }).problems.map((p) => p.message)).toEqual(
      expect.arrayContaining([expect.stringContaining("rows missing at the end")]),
    );

    const swapped = clone();
    [swapped.rows[1], swapped.rows[2]] = [swapped.rows[2] as never, swapped.rows[1] as never];
    expect(verifyAuditExport(swapped, { jwks: keys }).problems.map((p) => p.message)).toEqual(
      expect.arrayContaining([expect.stringContaining("out of order")]),
    );

    const manifest = clone();
    manifest.manifest.headChainSeq = 1;
    expect(verifyAuditExport(manifest, { jwks: keys }).manifests[0]?.signature).toBe("bad_signature");

    expect(verifyAuditExport(page, { jwks: { keys: [] } }).manifests[0]?.signature).toBe("unknown_key");
  });

  test("an erased row leaves a gap, which a signed certificate of its position explains", async () => {
    const org = await newOrg();
    const db = await getDb();
    await write(org.orgId, 6);
    const [victim] = await db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.chainSeq, 3)));
    if (!victim) throw new Error("no row 3");
    await db.delete(auditLogs).where(eq(auditLogs.id, victim.id));
    const keys = await jwks();
    const pages = await exportAll(org.orgId);

    const plain = verifyAuditExport(pages, { jwks: keys });
    expect(plain.ok).toBe(true);
    expect(plain.gaps).toEqual([{ fromChainSeq: 3, toChainSeq: 3, explained: false }]);
    expect(verifyAuditExport(pages, { jwks: keys, requireExplainedGaps: true }).ok).toBe(false);

    const certificate = await signArtifact(db, {
      type: "svc.test.certificate",
      erasedAuditRows: [{ chainSeq: 3, prevHash: victim.prevHash, rowHash: victim.rowHash }],
    });
    const explained = verifyAuditExport(pages, { jwks: keys, certificates: [certificate], requireExplainedGaps: true });
    expect(explained.problems).toEqual([]);
    expect(explained.gaps).toEqual([{ fromChainSeq: 3, toChainSeq: 3, explained: true }]);
    // A certificate that lies about the erased row's hash does not bridge the gap.
    const liar = await signArtifact(db, {
      type: "svc.test.certificate",
      erasedAuditRows: [{ chainSeq: 3, prevHash: victim.prevHash, rowHash: "0".repeat(64) }],
    });
    expect(verifyAuditExport(pages, { jwks: keys, certificates: [liar] }).ok).toBe(false);
    // An unsigned certificate is refused.
    expect(
      verifyAuditExport(pages, { jwks: keys, certificates: [{ ...certificate, signature: "A".repeat(86) }] }).ok,
    ).toBe(false);
  });

  test("the standalone verifier script and the README's openssl recipe agree", async () => {
    const org = await newOrg();
    await write(org.orgId, 4);
    const pages = await exportAll(org.orgId);
    const exportFile = path.join(tmp, "export.json");
    const jwksFile = path.join(tmp, "jwks.json");
    fs.writeFileSync(exportFile, JSON.stringify(pages[0]));
    fs.writeFileSync(jwksFile, JSON.stringify(await jwks()));
    const run = (file: string) =>
      spawnSync("npx", ["tsx", "scripts/verify-audit-export.ts", file, "--jwks", jwksFile], { encoding: "utf8" });
    const good = run(exportFile);
    expect(good.stdout).toContain("VERIFIED");
    expect(good.status).toBe(0);
    const tampered = JSON.parse(JSON.stringify(pages[0]));
    tampered.rows[1].actor = "system:someone-else";
    const badFile = path.join(tmp, "bad.json");
    fs.writeFileSync(badFile, JSON.stringify(tampered));
    const bad = run(badFile);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain("FAILED");

    // The README's openssl recipe, taken from the README itself and run as written.
    const readme = fs.readFileSync(path.resolve(__dirname, "..", "README.md"), "utf8");
    const block = /With only standard tools[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const recipe = `set -euo pipefail\ncd "${tmp}"\n${block ?? ""}`;
    const out = execFileSync("bash", ["-c", recipe], { encoding: "utf8" }).trim().split("\n");
    expect(out[0]).toBe("Signature Verified Successfully");
    expect(out[1]?.split(" ")[0]).toBe(out[2]);
    expect(out[2]).toBe(pages[0]?.rows[1]?.rowHash);
  });
});
