import { createHash, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, test, vi } from "vitest";
import { z } from "zod";
import { getDb } from "@/db";
import { rateLimits } from "@/db/schema";
import { take } from "@/lib/ratelimit";
import { defineContract } from "@/lib/core/contract";
import { issueToError as zodIssueToError } from "@/lib/core/issues";
import { defineOperation } from "@/lib/core/operation";
import { resolveClientIp } from "@/lib/http/client-ip";
import { createDispatcher } from "@/lib/http/dispatch";
import { consume, rateLimitHeaders, used } from "@/lib/http/rate-limit";
import { ipAllowed } from "@/lib/auth/ip";
import { call, newOrg } from "./harness";

describe("error envelope", () => {
  test("unknown /v1 path → 404 resource_not_found with a request id", async () => {
    const res = await call("GET", "/v1/no/such/thing");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: { type: "not_found_error", code: "resource_not_found", message: expect.any(String), param: "" },
    });
    expect(res.headers.get("x-request-id")).toMatch(/^req_[\w-]{16}$/);
  });

  test("method the path does not serve → 405 with Allow", async () => {
    const res = await call("DELETE", "/v1/api-keys");
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe("method_not_allowed");
    expect(res.headers.get("allow")).toBe("GET, POST");
  });

  test("an API key in the query string → 400, even with a valid header", async () => {
    const org = await newOrg();
    for (const q of ["api_key=abc", `x=${org.secret}`, "token=t"]) {
      const res = await call("GET", `/v1/whoami?${q}`, { key: org.secret });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });

  test("unknown body fields and query parameters are rejected, naming the field", async () => {
    const org = await newOrg();
    const res = await call("POST", "/v1/api-keys", {
      key: org.secret,
      body: { name: "x", scopes: ["keys:read"], colour: "red" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: "invalid_request_error", code: "invalid_request", param: "colour" });
    const q = await call("GET", "/v1/audit-logs?sort=asc", { key: org.secret });
    expect(q.status).toBe(400);
    expect(q.body.error.param).toBe("sort");
    const w = await call("GET", "/v1/whoami?x=1", { key: org.secret });
    expect(w.status).toBe(400);
  });

  test("validation errors name the path of the offending value", async () => {
    const org = await newOrg();
    const res = await call("POST", "/v1/api-keys", {
      key: org.secret,
      body: { name: "x", scopes: ["keys:read", "nope"] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe("scopes[1]");
    const missing = await call("POST", "/v1/api-keys", { key: org.secret, body: { scopes: ["keys:read"] } });
    expect(missing.body.error).toMatchObject({ param: "name", message: 'Missing required field "name".' });
    const nested = await call("PATCH", "/v1/notification-preferences", {
      key: org.secret,
      body: { preferences: { spam: true } },
    });
    expect(nested.body.error.param).toBe("preferences.spam");
  });

  test("zod paths format as to[1] and limits.maxSendsPerDay", () => {
    const schema = z.strictObject({
      to: z.array(z.email()),
      limits: z.strictObject({ maxSendsPerDay: z.int().max(10) }),
    });
    const a = schema.safeParse({ to: ["a@b.co", "bad"], limits: { maxSendsPerDay: 1 } });
    expect(zodIssueToError(a.error?.issues[0]).param).toBe("to[1]");
    const b = schema.safeParse({ to: [], limits: { maxSendsPerDay: 11 } });
    expect(zodIssueToError(b.error?.issues[0]).param).toBe("limits.maxSendsPerDay");
  });

  test("invalid JSON and bodies on body-less operations → 400", async () => {
    const org = await newOrg();
    const bad = await call("POST", "/v1/api-keys", { key: org.secret, rawBody: "{not json" });
    expect(bad.status).toBe(400);
    const keyId = (await call("GET", "/v1/api-keys", { key: org.secret })).body.apiKeys[0].id;
    const extra = await call("POST", `/v1/api-keys/${keyId}/revoke`, { key: org.secret, body: { reason: "x" } });
    expect(extra.status).toBe(400);
  });

  test("a body over the limit → 413 in the envelope", async () => {
    const org = await newOrg();
    const res = await call("POST", "/v1/api-keys", {
      key: org.secret,
      rawBody: JSON.stringify({ name: "x".repeat(1_100_000), scopes: ["admin"] }),
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
  });

  test("a malformed id in the path → 404, not 400 or 500", async () => {
    const org = await newOrg();
    const res = await call("GET", "/v1/api-keys/not-a-uuid", { key: org.secret });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("resource_not_found");
  });

  /** Calls a throwaway public GET operation whose handler returns `result`, capturing error logs. */
  async function callTestOperation(response: z.ZodType, result: () => Promise<unknown>) {
    const contract = defineContract({
      id: "test",
      method: "GET",
      path: "/v1/test",
      access: "public",
      tag: "Test",
      summary: "test",
      response,
    });
    const dispatch = createDispatcher([defineOperation(contract, result as () => Promise<never>)]);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await dispatch(new Request("http://localhost/v1/test"));
    const lines = logged.mock.calls.map((c) => String(c[0]));
    logged.mockRestore();
    return { res, lines };
  }

  test("an unexpected error → 500 internal_error, logged, with nothing internal leaked", async () => {
    const { res, lines } = await callTestOperation(z.object({}), () =>
      Promise.reject(new Error("secret database detail")),
    );
    const body = (await res.json()) as { error: { code: string; type: string; message: string } };
    const requestId = res.headers.get("x-request-id") ?? "missing";
    expect(res.status).toBe(500);
    expect(body.error).toMatchObject({ type: "api_error", code: "internal_error" });
    expect(body.error.message).not.toContain("secret");
    expect(body.error.message).toContain(requestId);
    // The details go to the log, under the same request id.
    expect(lines.find((l) => l.includes(requestId))).toContain("secret database detail");
  });

  test("a response that does not match its schema is a 500, never leaked", async () => {
    const { res, lines } = await callTestOperation(z.object({ id: z.string() }), () => Promise.resolve({ id: 5 }));
    expect(res.status).toBe(500);
    expect(lines.some((l) => l.includes("response failed its schema"))).toBe(true);
  });

  test("response schemas strip internal fields", async () => {
    const org = await newOrg();
    const res = await call("GET", "/v1/api-keys", { key: org.secret });
    expect(res.status).toBe(200);
    const key = res.body.apiKeys[0];
    expect(key).not.toHaveProperty("secretHash");
    expect(key).not.toHaveProperty("orgId");
    expect(Object.keys(key).sort()).toEqual(
      [
        "allowedIps",
        "createdAt",
        "environment",
        "id",
        "inboxIds",
        "lastUsedAt",
        "name",
        "object",
        "prefix",
        "scopes",
        "status",
      ].sort(),
    );
  });
});

describe("rate limiting", () => {
  test("RateLimit-* headers on every authenticated response", async () => {
    const org = await newOrg();
    const res = await call("GET", "/v1/whoami", { key: org.secret });
    expect(res.headers.get("ratelimit-limit")).toBe("1200");
    expect(Number(res.headers.get("ratelimit-remaining"))).toBe(1199);
    expect(Number(res.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
  });

  test("the limiter refuses past the limit; its count is in the database (whoami reads it)", async () => {
    const db = await getDb();
    const key = `k-test-${randomUUID()}`;
    for (let i = 0; i < 3; i++) expect((await consume(db, key, 3)).allowed).toBe(true);
    const refused = await consume(db, key, 3);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(rateLimitHeaders(refused)["RateLimit-Remaining"]).toBe("0");
    expect(used(key)).toBe(4);

    const org = await newOrg();
    await call("GET", "/v1/whoami", { key: org.secret });
    const second = await call("GET", "/v1/whoami", { key: org.secret });
    expect(second.body.usage.requestsThisMinute).toBe(2);
    expect(second.headers.get("ratelimit-remaining")).toBe("1198");
  });

  test("takers of blocks share one allowance exactly; a process spends its block from memory", async () => {
    const db = await getDb();
    // Six concurrent takers (as six processes would), 40 at a time, against 100: exactly 100 granted.
    const key = `k-take-${randomUUID()}`;
    const grants: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        for (;;) {
          const g = await take(db, key, { limit: 100, windowSeconds: 60 }, 40);
          grants.push(g.granted);
          if (g.granted === 0) return;
        }
      }),
    );
    expect(grants.reduce((a, b) => a + b, 0)).toBe(100);
    // 50 concurrent requests under the default 1,200: one block (1,200 / 16 = 75) taken, not 50 writes.
    const limited = `k-block-${randomUUID()}`;
    const verdicts = await Promise.all(Array.from({ length: 50 }, () => consume(db, limited)));
    expect(verdicts.every((v) => v.allowed)).toBe(true);
    expect(new Set(verdicts.map((v) => v.remaining)).size).toBe(50);
    expect(used(limited)).toBe(50);
    const [row] = await db
      .select()
      .from(rateLimits)
      .where(eq(rateLimits.key, createHash("sha256").update(`api-requests:${limited}`).digest("base64url")));
    expect(row?.hits).toBe(75);
  });
});

describe("client address", () => {
  test("socket address unless proxies are trusted; X-Forwarded-For read from the right", () => {
    expect(resolveClientIp("10.0.0.9", "6.6.6.6", 0)).toBe("10.0.0.9");
    expect(resolveClientIp("10.0.0.9", "6.6.6.6, 198.51.100.7", 1)).toBe("198.51.100.7");
    expect(resolveClientIp("10.0.0.9", "198.51.100.7, 10.0.0.8", 2)).toBe("198.51.100.7");
  });

  test("an address not stamped by this server counts as unknown: allowlisted keys are denied", async () => {
    const org = await newOrg();
    const k = await call("POST", "/v1/api-keys", {
      key: org.secret,
      body: { name: "ip", scopes: ["keys:read"], allowedIps: ["127.0.0.1"] },
    });
    const ok = await call("GET", "/v1/whoami", { key: k.body.secret, ip: "127.0.0.1" });
    expect(ok.status).toBe(200);
    const forged = await call("GET", "/v1/whoami", {
      key: k.body.secret,
      ip: null,
      headers: { "x-svc-client-ip": "127.0.0.1", "x-svc-server-token": "guess" },
    });
    expect(forged.status).toBe(403);
  });

  test("allowlists match IPv4, IPv6, CIDR ranges and IPv4-mapped IPv6", () => {
    expect(ipAllowed("192.0.2.10", ["192.0.2.0/24"])).toBe(true);
    expect(ipAllowed("192.0.3.10", ["192.0.2.0/24"])).toBe(false);
    expect(ipAllowed("::ffff:192.0.2.10", ["192.0.2.0/24"])).toBe(true);
    expect(ipAllowed("2001:db8::1", ["2001:db8::/32"])).toBe(true);
    expect(ipAllowed("2001:db9::1", ["2001:db8::/32"])).toBe(false);
    expect(ipAllowed("::1", ["::1"])).toBe(true);
    expect(ipAllowed(null, ["0.0.0.0/0"])).toBe(false);
  });
});
