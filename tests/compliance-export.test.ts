import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { auditLogs } from "@/db/schema";
import { verifyAuditExport } from "@/lib/compliance/verify";
import type { Jwks } from "@/lib/trust/jwk";
import { jwksKeyOf, listSigningKeys } from "@/lib/trust/keys";
import { type CallResult, call, newKey, newOrg, type TestOrg } from "./harness";

/**
 * `GET /v1/audit-logs/export` over HTTP: audited changes made through the API are chained as they
 * are written, pages follow `chainSeq` cursors, the manifest verifies, concurrent writers leave no
 * fork, and `svc compliance verify` detects tampering offline.
 */

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "svc-export-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function jwks(): Promise<Jwks> {
  return { keys: (await listSigningKeys(await getDb())).map(jwksKeyOf) };
}

async function exportAll(secret: string, query = "") {
  const pages: any[] = [];
  let cursor: number | null = null;
  for (;;) {
    const res: CallResult = await call(
      "GET",
      `/v1/audit-logs/export?${query}${cursor !== null ? `&cursor=${cursor}` : ""}`,
      { key: secret },
    );
    expect(res.status).toBe(200);
    pages.push(res.body);
    cursor = res.body.pagination.nextCursor;
    if (cursor === null) return pages;
  }
}

/** Some audited changes through the API. */
async function changes(org: TestOrg, n: number) {
  for (let i = 0; i < n; i++)
    await call("PUT", "/v1/budgets", {
      key: org.secret,
      body: { scope: "account", limits: { maxSendsPerDay: 100 + i } },
    });
}

describe("the audit export over HTTP", () => {
  test("changes made through the API are chained; pages of `limit` rows with chainSeq cursors; the export verifies", async () => {
    const org = await newOrg();
    await changes(org, 6);
    const reader = await newKey(org, { scopes: ["compliance:read"] });
    const pages = await exportAll(reader.secret, "limit=3");
    const rows = pages.flatMap((p) => p.rows);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(rows.map((r: { chainSeq: number }) => r.chainSeq)).toEqual(rows.map((_: unknown, i: number) => i + 1));
    expect(rows.filter((r: { action: string }) => r.action.startsWith("budget.")).length).toBe(6);
    expect(pages[0].manifest).toMatchObject({
      type: "svc.audit.manifest.v1",
      userId: org.orgId,
      region: "local",
      fromChainSeq: 1,
      toChainSeq: 3,
      rowCount: 3,
      alg: "EdDSA",
      cursor: null,
    });
    expect(pages[1].manifest.cursor).toBe(3);
    const report = verifyAuditExport(pages, { jwks: await jwks() });
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ ok: true, rowCount: rows.length, head: { reached: true } });

    // Time bounds are inclusive on createdAt; a window past every row is an empty, signed page.
    const last = rows[rows.length - 1];
    const bounded = await call("GET", `/v1/audit-logs/export?from=${encodeURIComponent(last.createdAt)}`, {
      key: reader.secret,
    });
    expect(bounded.body.rows.map((r: { id: string }) => r.id)).toContain(last.id);
    const empty = await call("GET", `/v1/audit-logs/export?from=2999-01-01T00:00:00Z`, { key: reader.secret });
    expect(empty.body).toMatchObject({
      rows: [],
      manifest: { rowCount: 0, fromChainSeq: null },
      pagination: { nextCursor: null },
    });
    for (const bad of [
      "cursor=-1",
      "cursor=abc",
      "limit=0",
      "limit=5001",
      "format=csv",
      "from=yesterday",
      "from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
    ]) {
      const res = await call("GET", `/v1/audit-logs/export?${bad}`, { key: reader.secret });
      expect(res.status, bad).toBe(400);
    }
  });

  test("concurrent writers through the API leave one contiguous chain with no fork", async () => {
    const org = await newOrg();
    const keys = await Promise.all(Array.from({ length: 8 }, () => newKey(org, { scopes: ["budgets:write"] })));
    await Promise.all(
      keys.flatMap((k) =>
        [1, 2, 3].map((i) =>
          call("PUT", "/v1/budgets", {
            key: org.secret,
            body: { scope: "key", scopeId: k.id, limits: { maxSendsPerDay: i } },
          }),
        ),
      ),
    );
    const pages = await exportAll(org.secret);
    const rows = pages.flatMap((p) => p.rows);
    expect(rows.map((r: { chainSeq: number }) => r.chainSeq)).toEqual(rows.map((_: unknown, i: number) => i + 1));
    expect(new Set(rows.map((r: { prevHash: string }) => r.prevHash)).size).toBe(rows.length);
    expect(verifyAuditExport(pages, { jwks: await jwks() }).ok).toBe(true);
  });

  test("svc compliance verify: VERIFIED for the export, FAILED for a row tampered in the file or in the database", async () => {
    const org = await newOrg();
    await changes(org, 3);
    const page = (await exportAll(org.secret))[0];
    const jwksFile = path.join(tmp, "jwks.json");
    fs.writeFileSync(jwksFile, JSON.stringify(await jwks()));
    const verify = (data: unknown) => {
      const file = path.join(tmp, `export-${Math.random().toString(36).slice(2)}.json`);
      fs.writeFileSync(file, JSON.stringify(data));
      return spawnSync("npm", ["run", "--silent", "svc", "--", "compliance", "verify", file, "--jwks", jwksFile], {
        encoding: "utf8",
      });
    };
    const good = verify(page);
    expect(good.stdout).toContain("VERIFIED");
    expect(good.status).toBe(0);

    const edited = structuredClone(page);
    edited.rows[1].metadata = { ...edited.rows[1].metadata, limits: { maxSendsPerDay: 1 } };
    const bad = verify(edited);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain("FAILED");

    // Changed in the database after it was chained: the next export no longer verifies.
    const db = await getDb();
    await db.execute(
      sql`update audit_logs set actor = 'system:intruder' where org_id = ${org.orgId} and chain_seq = 2`,
    );
    const [row] = await db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.chainSeq, 2)));
    expect(row?.actor).toBe("system:intruder");
    const report = verifyAuditExport(await exportAll(org.secret), { jwks: await jwks() });
    expect(report.ok).toBe(false);
    expect(report.problems.some((p) => p.chainSeq === 2)).toBe(true);
  }, 120_000);
});
