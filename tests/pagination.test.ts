import { expect, test } from "vitest";
import { getDb } from "@/db";
import { recordAudit } from "@/lib/core/audit";
import { call, newOrg } from "./harness";

async function addAuditRows(orgId: string, n: number, tag: string): Promise<void> {
  const db = await getDb();
  for (let i = 0; i < n; i++)
    await recordAudit(db, { actor: "system:test", ip: null }, { orgId, action: "test.row", resourceId: `${tag}-${i}` });
}

test("audit logs page newest first with stable keyset cursors under concurrent inserts", async () => {
  const org = await newOrg();
  await addAuditRows(org.orgId, 30, "before");
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: {
      status: number;
      body: { logs: { id: string; resourceId: string }[]; pagination: { nextCursor: string | null; hasMore: boolean } };
    } = await call("GET", `/v1/audit-logs?action=test.row&limit=7${cursor ? `&cursor=${cursor}` : ""}`, {
      key: org.secret,
    });
    expect(res.status).toBe(200);
    seen.push(...res.body.logs.map((l) => l.resourceId));
    expect(res.body.pagination.hasMore).toBe(res.body.pagination.nextCursor !== null);
    cursor = res.body.pagination.nextCursor;
    // Rows written while paging land before the first page and never shift later pages.
    if (pages === 0) await addAuditRows(org.orgId, 5, "during");
    pages++;
  } while (cursor);
  expect(pages).toBe(5);
  expect(seen).toHaveLength(30);
  expect(new Set(seen).size).toBe(30);
  expect(seen[0]).toBe("before-29");
  expect(seen.at(-1)).toBe("before-0");
  expect(seen.some((s) => s.startsWith("during"))).toBe(false);
});

test("limit defaults to 25 and must be within 1..100; bad cursors are 400", async () => {
  const org = await newOrg();
  await addAuditRows(org.orgId, 27, "x");
  const first = await call("GET", "/v1/audit-logs?action=test.row", { key: org.secret });
  expect(first.body.logs).toHaveLength(25);
  expect(first.body.pagination.hasMore).toBe(true);
  for (const bad of ["0", "101", "abc", "2.5"]) {
    const res = await call("GET", `/v1/audit-logs?limit=${bad}`, { key: org.secret });
    expect(res.status, bad).toBe(400);
    expect(res.body.error.param).toBe("limit");
  }
  const cur = await call("GET", "/v1/audit-logs?cursor=garbage", { key: org.secret });
  expect(cur.status).toBe(400);
  expect(cur.body.error.param).toBe("cursor");
});

test("audit logs record control-plane mutations and filter by action", async () => {
  const org = await newOrg();
  const created = await call("POST", "/v1/api-keys", { key: org.secret, body: { name: "a", scopes: ["keys:read"] } });
  const res = await call("GET", "/v1/audit-logs?action=api_key.created", { key: org.secret });
  expect(res.status).toBe(200);
  expect(res.body.logs[0]).toMatchObject({
    action: "api_key.created",
    resourceType: "api_key",
    resourceId: created.body.apiKey.id,
    actor: `api_key:${org.apiKeyId}`,
    ip: "127.0.0.1",
  });
  expect(res.body.logs.every((l: { action: string }) => l.action === "api_key.created")).toBe(true);
  const all = await call("GET", "/v1/audit-logs", { key: org.secret });
  expect(all.body.logs.map((l: { action: string }) => l.action)).toEqual(
    expect.arrayContaining(["organization.created", "api_key.created"]),
  );
});
