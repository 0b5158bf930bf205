import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { apiKeys, auditLogs, idempotencyKeys, inboxes } from "@/db/schema";
import { purgeExpiredIdempotencyKeys } from "@/lib/core/idempotency";
import { env } from "@/lib/env";
import { call, newOrg } from "./harness";

async function inboxCount(orgId: string): Promise<number> {
  const db = await getDb();
  return (await db.select().from(inboxes).where(eq(inboxes.orgId, orgId))).length;
}

const address = () => `idem-${randomUUID().slice(0, 8)}@${env.SHARED_DOMAIN}`;

test("same key and request replays the stored response; a different request is refused", async () => {
  const org = await newOrg();
  const body = { address: address() };
  const first = await call("POST", "/v1/inboxes", { key: org.secret, body, headers: { "Idempotency-Key": "k-1" } });
  const second = await call("POST", "/v1/inboxes", { key: org.secret, body, headers: { "Idempotency-Key": "k-1" } });
  expect(first.status).toBe(200);
  expect(second.status).toBe(200);
  expect(second.body).toEqual(first.body);
  expect(second.headers.get("idempotent-replayed")).toBe("true");
  expect(await inboxCount(org.orgId)).toBe(1);

  const other = await call("POST", "/v1/inboxes", {
    key: org.secret,
    body: { address: address() },
    headers: { "Idempotency-Key": "k-1" },
  });
  expect(other.status).toBe(400);
  expect(other.body.error.code).toBe("idempotency_key_mismatch");
});

test("concurrent duplicates execute once and all get the same response", async () => {
  const org = await newOrg();
  const body = { address: address() };
  const results = await Promise.all(
    Array.from({ length: 12 }, () =>
      call("POST", "/v1/inboxes", { key: org.secret, body, headers: { "Idempotency-Key": "race-1" } }),
    ),
  );
  expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
  const ids = new Set(results.map((r) => r.body.inbox.id));
  expect(ids.size).toBe(1);
  expect(await inboxCount(org.orgId)).toBe(1);
  const db = await getDb();
  const audits = await db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.resourceType, "inbox")));
  expect(audits).toHaveLength(1);
});

test("a response that carries a secret is never stored: a replay is refused with 409, also under concurrency", async () => {
  const org = await newOrg();
  const body = { name: "idem", scopes: ["keys:read"] };
  const first = await call("POST", "/v1/api-keys", { key: org.secret, body, headers: { "Idempotency-Key": "s-1" } });
  expect(first.status).toBe(200);
  const db = await getDb();
  const [record] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.orgId, org.orgId), eq(idempotencyKeys.key, "s-1")));
  expect(JSON.stringify(record)).not.toContain(first.body.secret);

  // Replayed by the same key, or by another key of the organization: no secret, a clear refusal.
  const other = await call("POST", "/v1/api-keys", {
    key: org.secret,
    body: { name: "keys", scopes: ["keys:write", "keys:read"] },
  });
  for (const key of [org.secret, other.body.secret]) {
    const again = await call("POST", "/v1/api-keys", { key, body, headers: { "Idempotency-Key": "s-1" } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "idempotency_key_replay_secret", param: "Idempotency-Key" });
    expect(again.body.error.message).toContain(first.body.apiKey.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(JSON.stringify(again.body)).not.toContain(first.body.secret);
  }
  expect(
    (
      await db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.orgId, org.orgId), eq(apiKeys.name, "idem")))
    ).length,
  ).toBe(1);

  const results = await Promise.all(
    Array.from({ length: 6 }, () =>
      call("POST", "/v1/api-keys", {
        key: org.secret,
        body: { name: "race", scopes: ["keys:read"] },
        headers: { "Idempotency-Key": "s-2" },
      }),
    ),
  );
  expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
  expect(results.filter((r) => r.status === 200)[0]?.body.secret).toMatch(/^svc_/);

  // Webhook secrets likewise.
  const hook = { url: "http://127.0.0.1:9/idem", events: ["message.received"] };
  const created = await call("POST", "/v1/webhooks", {
    key: org.secret,
    body: hook,
    headers: { "Idempotency-Key": "w-1" },
  });
  expect(created.status).toBe(200);
  const replay = await call("POST", "/v1/webhooks", {
    key: org.secret,
    body: hook,
    headers: { "Idempotency-Key": "w-1" },
  });
  expect(replay.status).toBe(409);
  expect(JSON.stringify(replay.body)).not.toContain(created.body.secret);
});

test("error outcomes are stored too, keys are per organization, and the header is validated", async () => {
  const a = await newOrg();
  const b = await newOrg();
  const bad = { name: "wide", scopes: ["admin"] };
  const limited = await call("POST", "/v1/api-keys", { key: a.secret, body: { name: "lim", scopes: ["keys:write"] } });
  const r1 = await call("POST", "/v1/api-keys", {
    key: limited.body.secret,
    body: bad,
    headers: { "Idempotency-Key": "e-1" },
  });
  const r2 = await call("POST", "/v1/api-keys", {
    key: limited.body.secret,
    body: bad,
    headers: { "Idempotency-Key": "e-1" },
  });
  expect(r1.status).toBe(400);
  expect(r2.status).toBe(400);
  expect(r2.body).toEqual(r1.body);

  // The same key string in another organization is unrelated.
  const other = await call("POST", "/v1/api-keys", {
    key: b.secret,
    body: { name: "b", scopes: ["keys:read"] },
    headers: { "Idempotency-Key": "e-1" },
  });
  expect(other.status).toBe(200);

  const long = await call("POST", "/v1/api-keys", {
    key: a.secret,
    body: bad,
    headers: { "Idempotency-Key": "x".repeat(129) },
  });
  expect(long.status).toBe(400);
  expect(long.body.error.param).toBe("Idempotency-Key");
  const max = await call("POST", "/v1/api-keys", {
    key: a.secret,
    body: { name: "m", scopes: ["keys:read"] },
    headers: { "Idempotency-Key": "x".repeat(128) },
  });
  expect(max.status).toBe(200);
});

test("keys are kept at least 24 hours, then purged", async () => {
  const org = await newOrg();
  await call("POST", "/v1/api-keys", {
    key: org.secret,
    body: { name: "p", scopes: ["keys:read"] },
    headers: { "Idempotency-Key": "p-1" },
  });
  const db = await getDb();
  const where = and(eq(idempotencyKeys.orgId, org.orgId), eq(idempotencyKeys.key, "p-1"));
  await purgeExpiredIdempotencyKeys(new Date(Date.now() + 23 * 3_600_000));
  expect(await db.select().from(idempotencyKeys).where(where)).toHaveLength(1);
  await purgeExpiredIdempotencyKeys(new Date(Date.now() + 25 * 3_600_000));
  expect(await db.select().from(idempotencyKeys).where(where)).toHaveLength(0);
});
