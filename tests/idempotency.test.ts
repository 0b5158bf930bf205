import { and, eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { apiKeys, auditLogs, idempotencyKeys } from "@/db/schema";
import { purgeExpiredIdempotencyKeys } from "@/lib/core/idempotency";
import { call, newOrg } from "./harness";

async function keyCount(orgId: string, name: string): Promise<number> {
  const db = await getDb();
  return (await db.select().from(apiKeys).where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.name, name)))).length;
}

test("same key and request replays the stored response; a different request is refused", async () => {
  const org = await newOrg();
  const body = { name: "idem", scopes: ["keys:read"] };
  const first = await call("POST", "/v1/api-keys", { key: org.secret, body, headers: { "Idempotency-Key": "k-1" } });
  const second = await call("POST", "/v1/api-keys", { key: org.secret, body, headers: { "Idempotency-Key": "k-1" } });
  expect(first.status).toBe(200);
  expect(second.status).toBe(200);
  expect(second.body).toEqual(first.body);
  expect(second.headers.get("idempotent-replayed")).toBe("true");
  expect(await keyCount(org.orgId, "idem")).toBe(1);

  const other = await call("POST", "/v1/api-keys", { key: org.secret, body: { ...body, name: "other" }, headers: { "Idempotency-Key": "k-1" } });
  expect(other.status).toBe(400);
  expect(other.body.error.code).toBe("idempotency_key_mismatch");
});

test("concurrent duplicates execute once and all get the same response", async () => {
  const org = await newOrg();
  const body = { name: "race", scopes: ["keys:read"] };
  const results = await Promise.all(
    Array.from({ length: 12 }, () => call("POST", "/v1/api-keys", { key: org.secret, body, headers: { "Idempotency-Key": "race-1" } })),
  );
  expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
  const ids = new Set(results.map((r) => r.body.apiKey.id));
  expect(ids.size).toBe(1);
  expect(await keyCount(org.orgId, "race")).toBe(1);
  const db = await getDb();
  const audits = await db.select().from(auditLogs).where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.action, "api_key.created")));
  expect(audits.filter((a) => (a.metadata as { name?: string } | null)?.name === "race")).toHaveLength(1);
});

test("error outcomes are stored too, keys are per organization, and the header is validated", async () => {
  const a = await newOrg();
  const b = await newOrg();
  const bad = { name: "wide", scopes: ["admin"] };
  const limited = await call("POST", "/v1/api-keys", { key: a.secret, body: { name: "lim", scopes: ["keys:write"] } });
  const r1 = await call("POST", "/v1/api-keys", { key: limited.body.secret, body: bad, headers: { "Idempotency-Key": "e-1" } });
  const r2 = await call("POST", "/v1/api-keys", { key: limited.body.secret, body: bad, headers: { "Idempotency-Key": "e-1" } });
  expect(r1.status).toBe(400);
  expect(r2.status).toBe(400);
  expect(r2.body).toEqual(r1.body);

  // The same key string in another organization is unrelated.
  const other = await call("POST", "/v1/api-keys", { key: b.secret, body: { name: "b", scopes: ["keys:read"] }, headers: { "Idempotency-Key": "e-1" } });
  expect(other.status).toBe(200);

  const long = await call("POST", "/v1/api-keys", { key: a.secret, body: bad, headers: { "Idempotency-Key": "x".repeat(129) } });
  expect(long.status).toBe(400);
  expect(long.body.error.param).toBe("Idempotency-Key");
  const max = await call("POST", "/v1/api-keys", { key: a.secret, body: { name: "m", scopes: ["keys:read"] }, headers: { "Idempotency-Key": "x".repeat(128) } });
  expect(max.status).toBe(200);
});

test("keys are kept at least 24 hours, then purged", async () => {
  const org = await newOrg();
  await call("POST", "/v1/api-keys", { key: org.secret, body: { name: "p", scopes: ["keys:read"] }, headers: { "Idempotency-Key": "p-1" } });
  const db = await getDb();
  const where = and(eq(idempotencyKeys.orgId, org.orgId), eq(idempotencyKeys.key, "p-1"));
  await purgeExpiredIdempotencyKeys(new Date(Date.now() + 23 * 3_600_000));
  expect(await db.select().from(idempotencyKeys).where(where)).toHaveLength(1);
  await purgeExpiredIdempotencyKeys(new Date(Date.now() + 25 * 3_600_000));
  expect(await db.select().from(idempotencyKeys).where(where)).toHaveLength(0);
});
