import { and, eq, sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { apiKeys, auditLogs } from "@/db/schema";
import { hashSecret } from "@/lib/api-keys/secrets";
import { call, newInbox, newKey, newOrg } from "./harness";

test("create returns the secret once; only its hash and prefix are stored", async () => {
  const org = await newOrg();
  const res = await call("POST", "/v1/api-keys", {
    key: org.secret,
    body: { name: "ci", scopes: ["messages", "keys:read"], environment: "test", allowedIps: ["127.0.0.1", "::1"] },
  });
  expect(res.status).toBe(200);
  const { apiKey, secret } = res.body;
  expect(secret).toMatch(/^svc_test_[A-Za-z0-9]{40}$/);
  expect(apiKey).toMatchObject({
    object: "api_key",
    name: "ci",
    status: "active",
    environment: "test",
    scopes: ["messages", "keys:read"],
  });
  expect(secret.startsWith(apiKey.prefix)).toBe(true);

  const db = await getDb();
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, apiKey.id));
  expect(row?.secretHash).toBe(hashSecret(secret));
  expect(JSON.stringify(row)).not.toContain(secret);

  const get = await call("GET", `/v1/api-keys/${apiKey.id}`, { key: org.secret });
  expect(get.body.apiKey).toEqual(apiKey);
  expect(JSON.stringify(get.body)).not.toContain(secret);
  const list = await call("GET", "/v1/api-keys", { key: org.secret });
  expect(list.body.apiKeys.map((k: { id: string }) => k.id)).toContain(apiKey.id);

  // The new key works, with its bundle expanded.
  const who = await call("GET", "/v1/whoami", { key: secret });
  expect(who.status).toBe(200);
  expect(who.body.apiKey.scopes).toEqual(expect.arrayContaining(["messages:read", "messages:send", "keys:read"]));
  expect(who.body.apiKey.scopes).not.toContain("keys:write");
});

test("a key can only grant a subset of its own scopes, bundles expanded", async () => {
  const org = await newOrg();
  const parent = await newKey(org, { scopes: ["messages", "keys:write"] });
  const ok = await call("POST", "/v1/api-keys", {
    key: parent.secret,
    body: { name: "child", scopes: ["messages:send"] },
  });
  expect(ok.status).toBe(200);
  const bundle = await call("POST", "/v1/api-keys", {
    key: parent.secret,
    body: { name: "child", scopes: ["messages"] },
  });
  expect(bundle.status).toBe(200);
  const wider = await call("POST", "/v1/api-keys", {
    key: parent.secret,
    body: { name: "child", scopes: ["messages", "letters:read"] },
  });
  expect(wider.status).toBe(400);
  expect(wider.body.error).toMatchObject({ code: "invalid_request", param: "scopes" });
  expect(wider.body.error.message).toContain("letters:read");
  const admin = await call("POST", "/v1/api-keys", { key: parent.secret, body: { name: "child", scopes: ["admin"] } });
  expect(admin.status).toBe(400);
});

test("scopes, allowedIps and counts are validated", async () => {
  const org = await newOrg();
  const cases: [Record<string, unknown>, string][] = [
    [{ name: "x", scopes: [] }, "scopes"],
    [{ name: "", scopes: ["admin"] }, "name"],
    [{ name: "x", scopes: ["admin"], allowedIps: ["not-an-ip"] }, "allowedIps[0]"],
    [{ name: "x", scopes: ["admin"], allowedIps: ["10.0.0.0/33"] }, "allowedIps[0]"],
    [{ name: "x", scopes: ["admin"], allowedIps: Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`) }, "allowedIps"],
    [{ name: "x", scopes: ["admin"], inboxIds: ["nope"] }, "inboxIds[0]"],
    [{ name: "x", scopes: ["admin"], environment: "staging" }, "environment"],
  ];
  for (const [body, param] of cases) {
    const res = await call("POST", "/v1/api-keys", { key: org.secret, body });
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(res.body.error.param).toBe(param);
  }
});

test("update changes name, allowlist and inbox restriction; revoke is immediate and audited", async () => {
  const org = await newOrg();
  const k = await newKey(org, { scopes: ["keys:read"] });
  const inbox = (await newInbox(org)).id;
  const upd = await call("PATCH", `/v1/api-keys/${k.id}`, {
    key: org.secret,
    body: { name: "renamed", allowedIps: ["10.1.0.0/16"], inboxIds: [inbox] },
  });
  expect(upd.status).toBe(200);
  expect(upd.body.apiKey).toMatchObject({ name: "renamed", allowedIps: ["10.1.0.0/16"], inboxIds: [inbox] });
  expect((await call("GET", "/v1/whoami", { key: k.secret, ip: "10.1.2.3" })).status).toBe(200);
  expect((await call("GET", "/v1/whoami", { key: k.secret, ip: "10.2.0.1" })).status).toBe(403);
  const cleared = await call("PATCH", `/v1/api-keys/${k.id}`, { key: org.secret, body: { allowedIps: null } });
  expect(cleared.body.apiKey.allowedIps).toBeNull();
  expect((await call("PATCH", `/v1/api-keys/${k.id}`, { key: org.secret, body: {} })).status).toBe(400);

  const revoked = await call("POST", `/v1/api-keys/${k.id}/revoke`, { key: org.secret });
  expect(revoked.body.apiKey.status).toBe("revoked");
  const who = await call("GET", "/v1/whoami", { key: k.secret });
  expect(who.status).toBe(401);
  expect(who.body.error.code).toBe("invalid_api_key");
  const again = await call("POST", `/v1/api-keys/${k.id}/revoke`, { key: org.secret });
  expect(again.status).toBe(200);

  const db = await getDb();
  const audit = await db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.resourceId, k.id)));
  expect(audit.map((a) => a.action).sort()).toEqual([
    "api_key.created",
    "api_key.revoked",
    "api_key.updated",
    "api_key.updated",
  ]);
  expect(audit.every((a) => a.actor === `api_key:${org.apiKeyId}` && a.ip === "127.0.0.1")).toBe(true);
});

test("lastUsedAt is set on use", async () => {
  const org = await newOrg();
  const k = await newKey(org, { scopes: ["keys:read"] });
  expect((await call("GET", `/v1/api-keys/${k.id}`, { key: org.secret })).body.apiKey.lastUsedAt).toBeNull();
  await call("GET", "/v1/whoami", { key: k.secret });
  await expect
    .poll(async () => (await call("GET", `/v1/api-keys/${k.id}`, { key: org.secret })).body.apiKey.lastUsedAt, {
      timeout: 5000,
    })
    .not.toBeNull();
});

test("whoami has the full shape of the specification", async () => {
  const org = await newOrg();
  const res = await call("GET", "/v1/whoami", { key: org.secret });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    userId: org.userId,
    projectId: org.orgId,
    apiKey: { id: org.apiKeyId },
    plan: expect.any(String),
    limits: expect.any(Object),
    usage: { activeApiKeys: 1 },
    period: { start: expect.any(String), end: expect.any(String) },
    notes: expect.any(Object),
    storage: {
      usedBytes: 0,
      limitBytes: expect.any(Number),
      remainingBytes: expect.any(Number),
      breakdown: expect.any(Object),
    },
    organization: { id: org.orgId, role: "owner" },
    organizations: [
      { id: org.orgId, role: "owner", name: expect.any(String), slug: expect.any(String), vanitySlug: null },
    ],
    letters: { printMode: "test" },
  });
});

test("whoami works for a key with any scope", async () => {
  const org = await newOrg();
  const k = await newKey(org, { scopes: ["templates:read"] });
  expect((await call("GET", "/v1/whoami", { key: k.secret })).status).toBe(200);
});

test("a cached key is dropped when it changes: in this process at once, in others on NOTIFY svc_api_keys", async () => {
  const org = await newOrg();
  const a = await newKey(org, { scopes: ["keys:read"] });
  const b = await newKey(org, { scopes: ["keys:read"] });
  const db = await getDb();
  const whoami = (secret: string) => call("GET", "/v1/whoami", { key: secret });
  // Warm the cache: the first authentication starts this process's listener; later ones cache.
  for (let i = 0; i < 20; i++) {
    expect((await whoami(a.secret)).status).toBe(200);
    expect((await whoami(b.secret)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 10));
  }
  // Revoked through the API: refused on the very next request.
  expect((await call("POST", `/v1/api-keys/${a.id}/revoke`, { key: org.secret })).status).toBe(200);
  expect((await whoami(a.secret)).status).toBe(401);
  // (A change clears the whole cache; b is read, and cached, again.)
  expect((await whoami(b.secret)).status).toBe(200);
  // Changed by hand, with no announcement: the cached row still answers (the cache is real; the
  // TTL, API_KEY_CACHE_SECONDS, bounds this)...
  await db.update(apiKeys).set({ status: "revoked", revokedAt: new Date() }).where(eq(apiKeys.id, b.id));
  expect((await whoami(b.secret)).status).toBe(200);
  // ...until a NOTIFY svc_api_keys commits, as another server process's change would send.
  await db.execute(sql`select pg_notify('svc_api_keys', '')`);
  const start = Date.now();
  let status = 200;
  while (status === 200 && Date.now() - start < 2000) {
    status = (await whoami(b.secret)).status;
    if (status === 200) await new Promise((r) => setTimeout(r, 20));
  }
  expect(status).toBe(401);
});

test("whoami's figures: a change through an operation shows at once; one made outside the operations within a second", async () => {
  const org = await newOrg();
  const before = await call("GET", "/v1/whoami", { key: org.secret });
  expect(before.body.usage.activeApiKeys).toBe(1);
  // Through an operation (invoke): the next whoami reads again, even right after a cached one.
  await newKey(org, { scopes: ["keys:read"] });
  expect((await call("GET", "/v1/whoami", { key: org.secret })).body.usage.activeApiKeys).toBe(2);
  // Outside the operations (another process, a workflow, by hand): the cached figures may be
  // served until they are a second old, then they are read again.
  const db = await getDb();
  await db
    .update(apiKeys)
    .set({ status: "revoked" })
    .where(and(eq(apiKeys.orgId, org.orgId), sql`${apiKeys.id} <> ${org.apiKeyId}`));
  await new Promise((r) => setTimeout(r, 1_100));
  expect((await call("GET", "/v1/whoami", { key: org.secret })).body.usage.activeApiKeys).toBe(1);
});
