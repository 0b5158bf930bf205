import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { requestLogs } from "@/db/schema";
import type { Actor } from "@/lib/core/actor";
import { flushRequestLog, recordRequest } from "@/lib/request-logs/recorder";
import { purgeOldRequestLogs } from "@/lib/request-logs/service";
import { call, callRaw, newKey, newOrg } from "./harness";

test("a refused request is found by its key and status, with the error code and the body", {
  timeout: 120_000,
}, async () => {
  const org = await newOrg();
  const key = await newKey(org, { name: "deploy bot", scopes: ["inboxes:write", "account:read"] });
  const bad = await call("POST", "/v1/inboxes", { key: key.secret, body: { displayName: "no address" } });
  expect(bad.status).toBe(400);
  await call("GET", "/v1/whoami", { key: key.secret });
  await call("GET", "/v1/whoami", { key: null }); // no key: no organization, nothing recorded

  const res = await call("GET", `/v1/logs?keyId=${key.id}&status=4xx`, { key: org.secret });
  expect(res.status).toBe(200);
  expect(res.body.logs).toHaveLength(1);
  const [entry] = res.body.logs;
  expect(entry).toMatchObject({
    source: "api",
    method: "POST",
    path: "/v1/inboxes",
    status: 400,
    errorCode: bad.body.error.code,
    keyId: key.id,
    keyName: "deploy bot",
    actorName: "deploy bot",
    requestId: bad.headers.get("x-request-id"),
  });
  expect(JSON.parse(entry.requestBody)).toEqual({ displayName: "no address" });
  expect(JSON.parse(entry.responseBody)).toEqual(bad.body);
  expect(entry.durationMs).toBeGreaterThanOrEqual(0);

  // Filters: exact status, method, path prefix, time window; one entry by id.
  const byStatus = await call("GET", `/v1/logs?keyId=${key.id}&status=200&method=GET`, { key: org.secret });
  expect(byStatus.body.logs.map((l: { path: string }) => l.path)).toEqual(["/v1/whoami"]);
  const byPath = await call("GET", `/v1/logs?keyId=${key.id}&path=/v1/inbox*`, { key: org.secret });
  expect(byPath.body.logs).toHaveLength(1);
  const future = await call(
    "GET",
    `/v1/logs?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    {
      key: org.secret,
    },
  );
  expect(future.body.logs).toEqual([]);
  const one = await call("GET", `/v1/logs/${entry.id}`, { key: org.secret });
  expect(one.body).toEqual(entry);
  const badStatus = await call("GET", "/v1/logs?status=abc", { key: org.secret });
  expect(badStatus.status).toBe(400);
  expect(badStatus.body.error.param).toBe("status");
});

test("secrets and attachment bytes never reach the stored log", async () => {
  const org = await newOrg();
  const password = `pw-${crypto.randomUUID()}`;
  const webhookSecret = `whsec_${crypto.randomUUID().replaceAll("-", "")}`;
  const blob = Buffer.alloc(3000, 7).toString("base64");
  // A refused body carrying a password, a webhook secret, an API key in free text and attachment bytes.
  const refused = await call("POST", "/v1/webhooks", {
    key: org.secret,
    body: {
      url: "not a url",
      password,
      secret: webhookSecret,
      note: `my key is ${org.secret}`,
      attachments: [{ filename: "a.pdf", content: blob }],
    },
  });
  expect(refused.status).toBe(400);
  // A created key: its secret is in the response.
  const created = await call("POST", "/v1/api-keys", { key: org.secret, body: { name: "ci", scopes: ["messages"] } });
  expect(created.status).toBe(200);
  // A created webhook: its signing secret is in the response.
  const hook = await call("POST", "/v1/webhooks", {
    key: org.secret,
    body: { url: "https://hooks.example.com/in", eventTypes: ["message.received"] },
  });
  await flushRequestLog();

  const db = await getDb();
  const rows = await db.select().from(requestLogs).where(eq(requestLogs.orgId, org.orgId));
  expect(rows.length).toBeGreaterThanOrEqual(3);
  const stored = JSON.stringify(rows);
  for (const secret of [password, webhookSecret, org.secret, created.body.secret, blob.slice(0, 200)]) {
    expect(stored).not.toContain(secret);
  }
  if (hook.status === 200) {
    const hookSecrets = JSON.stringify(hook.body).match(/whsec_[A-Za-z0-9+/=_-]+/g) ?? [];
    for (const s of hookSecrets) expect(stored).not.toContain(s);
  }
  // By its request id: the webhook below may be refused too (400) when its host does not resolve.
  const refusedRow = rows.find((r) => r.requestId === refused.headers.get("x-request-id"));
  expect(refusedRow?.status).toBe(400);
  expect(JSON.parse(refusedRow?.requestBody ?? "{}")).toMatchObject({
    url: "not a url",
    password: "[redacted]",
    secret: "[redacted]",
    note: "my key is [redacted]",
    attachments: [{ filename: "a.pdf", content: "[3000 bytes removed]" }],
  });
});

test("bodies are capped, MCP requests are recorded, other organizations see nothing, old rows are purged", async () => {
  const org = await newOrg();
  const other = await newOrg();
  const big = await call("POST", "/v1/inboxes", { key: org.secret, body: { displayName: "long words ".repeat(4000) } });
  expect(big.status).toBe(400);
  const mcp = await callRaw("POST", "/mcp", {
    key: org.secret,
    headers: { accept: "application/json, text/event-stream" },
    body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
  });
  expect(mcp.status).toBe(200);

  const mine = await call("GET", "/v1/logs?method=POST", { key: org.secret });
  const capped = mine.body.logs.find((l: { path: string }) => l.path === "/v1/inboxes");
  expect(capped.requestBody.length).toBeLessThan(16_384 + 100);
  expect(capped.requestBody).toMatch(/more characters not kept\]$/);
  const viaMcp = mine.body.logs.find((l: { source: string }) => l.source === "mcp");
  expect(viaMcp).toMatchObject({ path: "/mcp", status: 200, actor: `mcp:${org.apiKeyId}` });
  expect(JSON.parse(viaMcp.requestBody)).toMatchObject({ method: "tools/list" });

  const theirs = await call("GET", "/v1/logs", { key: other.secret });
  expect(theirs.body.logs.every((l: { keyId: string }) => l.keyId !== org.apiKeyId)).toBe(true);
  expect((await call("GET", `/v1/logs/${capped.id}`, { key: other.secret })).status).toBe(404);

  const db = await getDb();
  await db.update(requestLogs).set({ createdAt: sql`now() - interval '30 days'` }).where(eq(requestLogs.id, capped.id));
  expect(await purgeOldRequestLogs(db)).toBeGreaterThanOrEqual(1);
  expect((await call("GET", `/v1/logs/${capped.id}`, { key: org.secret })).status).toBe(404);
});

test("a body's tabs, newlines, backslashes and NULs survive the batch, and a deleted organization's rows do not fail it", async () => {
  const org = await newOrg();
  // Not JSON, so it is kept as text: every character COPY's text format must escape.
  const rawBody = 'line one\n\tline "two" \\ C:\\path\r\n\\N\u0000end ✓ 😀';
  const bad = await callRaw("POST", "/v1/inboxes", { key: org.secret, rawBody });
  expect(bad.status).toBe(400);
  // A request of an organization that no longer exists, buffered in the same batch.
  const gone = {
    type: "apiKey",
    principal: { orgId: randomUUID(), apiKeyId: randomUUID(), actor: "api_key:gone", scopes: new Set() },
  } as unknown as Actor;
  const goneId = recordRequest({
    source: "api",
    actor: gone,
    method: "GET",
    url: new URL("http://localhost/v1/whoami"),
    status: 200,
    errorCode: null,
    startedAt: performance.now(),
    requestId: "req_gone",
    ip: null,
    requestBody: null,
    responseBody: { ok: true },
  });
  expect(goneId).toBeTruthy();
  await call("GET", "/v1/whoami", { key: org.secret });

  const res = await call("GET", "/v1/logs?path=/v1/inboxes", { key: org.secret });
  expect(res.body.logs).toHaveLength(1);
  expect(res.body.logs[0].requestBody).toBe(rawBody.replace("\u0000", "\uFFFD"));
  const whoami = await call("GET", "/v1/logs?path=/v1/whoami", { key: org.secret });
  expect(whoami.body.logs).toHaveLength(1);
  const db = await getDb();
  expect(
    await db
      .select()
      .from(requestLogs)
      .where(eq(requestLogs.id, goneId as string)),
  ).toEqual([]);
});
