import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { NextRequest } from "next/server";
import { beforeAll, describe, expect, test } from "vitest";

import { getDb } from "@/db";
import { registerUser } from "@/lib/account/users";
import { AUTH_LIMITS } from "@/lib/console/throttle";
import { env } from "@/lib/env";
import { forgetAuthFailures } from "@/lib/http/auth-failures";
import { CLIENT_IP_HEADER, SERVER_TOKEN_HEADER, serverToken } from "@/lib/http/client-ip";
import { clientSubject, hit } from "@/lib/ratelimit";
import { call, newOrg, type TestOrg } from "./harness";

/** A documentation address no other test uses, so the shared store (on PostgreSQL) starts at zero. */
// Each call a different address (a random start, then the next one): two tests of this file drawing
// the same random address shared its counts, which throttled one of them early now and then.
let nextIp = randomBytes(1).readUInt8(0) % 250;
const freshIp = () => `198.51.100.${1 + (nextIp++ % 250)}`;
const freshIpv6 = () => `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}::1`;
const stamped = (ip: string) => ({ [CLIENT_IP_HEADER]: ip, [SERVER_TOKEN_HEADER]: serverToken() });

/** A browser-like client of Auth.js's own routes (CSRF cookie and token first), as an attacker would script it. */
async function authClient(ip: string) {
  const { handlers } = await import("@/lib/console/auth");
  const base = "http://localhost:3999";
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const remember = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair = ""] = c.split(";");
      const i = pair.indexOf("=");
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
  };
  const csrfRes = await handlers.GET(new NextRequest(`${base}/api/auth/csrf`, { headers: stamped(ip) }));
  remember(csrfRes);
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const post = async (path: string, form: Record<string, string>) => {
    const res = await handlers.POST(
      new NextRequest(`${base}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: cookie(),
          origin: base,
          ...stamped(ip),
        },
        body: new URLSearchParams({ ...form, csrfToken, callbackUrl: `${base}/` }).toString(),
      }),
    );
    remember(res);
    return { status: res.status, location: res.headers.get("location") ?? "" };
  };
  return {
    password: (email: string, password: string) => post("/api/auth/callback/password", { email, password }),
    emailLink: (email: string) => post("/api/auth/signin/email", { email }),
  };
}

describe("the shared throttle store (lib/ratelimit)", () => {
  test("counts per key within a window and reports the reset", async () => {
    const db = await getDb();
    const key = `test:${randomUUID()}`;
    const rule = { limit: 3, windowSeconds: 60 };
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push(await hit(db, key, rule));
    expect(seen.map((v) => v.allowed)).toEqual([true, true, true, false, false]);
    expect(seen.map((v) => v.remaining)).toEqual([2, 1, 0, 0, 0]);
    for (const v of seen) {
      expect(v.resetSeconds).toBeGreaterThanOrEqual(1);
      expect(v.resetSeconds).toBeLessThanOrEqual(60);
    }
    expect((await hit(db, `test:${randomUUID()}`, rule)).allowed).toBe(true);
  });

  test("concurrent hits are counted exactly once each", async () => {
    const db = await getDb();
    const key = `test:${randomUUID()}`;
    const verdicts = await Promise.all(Array.from({ length: 20 }, () => hit(db, key, { limit: 7, windowSeconds: 60 })));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(7);
    expect(verdicts.map((v) => v.remaining).sort((a, b) => a - b)).toEqual([...Array(13).fill(0), 0, 1, 2, 3, 4, 5, 6]);
  });

  test("a window that has ended starts over", async () => {
    const db = await getDb();
    const key = `test:${randomUUID()}`;
    expect((await hit(db, key, { limit: 1, windowSeconds: 60 })).allowed).toBe(true);
    expect((await hit(db, key, { limit: 1, windowSeconds: 60 })).allowed).toBe(false);
    const { rateLimits } = await import("@/db/schema");
    const { sql } = await import("drizzle-orm");
    await db.update(rateLimits).set({ resetAt: sql`now() - interval '1 second'` });
    expect((await hit(db, key, { limit: 1, windowSeconds: 60 })).allowed).toBe(true);
    const { purgeExpiredRateLimits } = await import("@/lib/ratelimit");
    await db.update(rateLimits).set({ resetAt: sql`now() - interval '1 second'` });
    expect(await purgeExpiredRateLimits(db)).toBeGreaterThanOrEqual(1);
  });

  test("client subjects: IPv4 as is (also when IPv4-mapped), IPv6 by /64, unknown is null", () => {
    expect(clientSubject("203.0.113.9")).toBe("203.0.113.9");
    expect(clientSubject("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(clientSubject("2001:db8:1:2:aaaa::1")).toBe(clientSubject("2001:db8:1:2:bbbb::2"));
    expect(clientSubject("2001:db8:1:2::1")).not.toBe(clientSubject("2001:db8:1:3::1"));
    expect(clientSubject(null)).toBeNull();
    expect(clientSubject("not an ip")).toBeNull();
  });
});

describe("sign-in throttles hold on Auth.js's own routes (issue 10 #3)", () => {
  test("POST /api/auth/callback/password: wrong passwords are throttled per address, and then the right one is refused too", async () => {
    const email = `throttle-${randomUUID().slice(0, 8)}@example.test`;
    const password = "the right password, long enough";
    await registerUser(await getDb(), { email, password });
    const { perEmail } = AUTH_LIMITS["sign-in"];
    // Different client addresses, so only the per-address limit applies.
    const outcomes = [];
    for (let i = 0; i < perEmail.limit + 3; i++)
      outcomes.push(await (await authClient(freshIp())).password(email, `wrong guess ${i}`));
    for (const o of outcomes.slice(0, perEmail.limit)) {
      expect(o.location).toContain("error=CredentialsSignin");
      expect(o.location).not.toContain("rate_limited");
    }
    for (const o of outcomes.slice(perEmail.limit)) expect(o.location).toContain("code=rate_limited");
    const right = await (await authClient(freshIp())).password(email, password);
    expect(right.location).toContain("code=rate_limited");
  });

  test("POST /api/auth/callback/password: one client address is throttled across many accounts", async () => {
    const ip = freshIp();
    const client = await authClient(ip);
    const { perClient } = AUTH_LIMITS["sign-in"];
    const outcomes = [];
    for (let i = 0; i < perClient.limit + 2; i++)
      outcomes.push(await client.password(`spray-${i}-${randomUUID().slice(0, 6)}@example.test`, "password guess 1"));
    expect(outcomes.slice(0, perClient.limit).every((o) => !o.location.includes("rate_limited"))).toBe(true);
    expect(outcomes.slice(perClient.limit).every((o) => o.location.includes("code=rate_limited"))).toBe(true);
  });

  test("POST /api/auth/signin/email: sign-in emails to one address are throttled; nothing is sent past the limit", async () => {
    const email = `links-${randomUUID().slice(0, 8)}@example.test`;
    await registerUser(await getDb(), { email, password: "some long password here" });
    const { perEmail } = AUTH_LIMITS["email-link"];
    const sent = [];
    for (let i = 0; i < perEmail.limit + 3; i++) sent.push(await (await authClient(freshIp())).emailLink(email));
    for (const s of sent.slice(0, perEmail.limit)) expect(s.location).toContain("/api/auth/verify-request");
    for (const s of sent.slice(perEmail.limit)) expect(s.location).toContain("/sign-in?error=RateLimited");
    const outbox = fs.existsSync(env.OUTBOX_DIR) ? fs.readdirSync(env.OUTBOX_DIR) : [];
    expect(outbox.filter((f) => fs.readFileSync(path.join(env.OUTBOX_DIR, f)).includes(email))).toHaveLength(
      perEmail.limit,
    );
  });
});

describe("failed API-key authentication is limited per client address (issue 10 #14)", () => {
  let org: TestOrg;
  beforeAll(async () => {
    // A low limit for this file (vitest.config.ts sets a high one for the security matrix).
    (env as { API_AUTH_FAILURES_PER_MINUTE: number }).API_AUTH_FAILURES_PER_MINUTE = 5;
    org = await newOrg();
  });

  test("bad keys from one address get 429 with Retry-After in the error envelope; other addresses and valid keys elsewhere are unaffected", async () => {
    forgetAuthFailures();
    const ip = freshIp();
    const bad = `svc_live_${"x".repeat(40)}`;
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await call("GET", "/v1/whoami", { key: i % 2 ? bad : "nope", ip })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const limited = await call("GET", "/v1/whoami", { key: bad, ip });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ type: "rate_limit_error", code: "rate_limited" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    // While refused the address is refused whatever it sends (no key lookup is made).
    expect((await call("GET", "/v1/whoami", { key: org.secret, ip })).status).toBe(429);
    // Another address, and the same organization's key from it, still work.
    const other = freshIp();
    expect((await call("GET", "/v1/whoami", { key: bad, ip: other })).status).toBe(401);
    expect((await call("GET", "/v1/whoami", { key: org.secret, ip: other })).status).toBe(200);
    // A missing key is not a guess and is not counted.
    const quiet = freshIp();
    for (let i = 0; i < 8; i++) expect((await call("GET", "/v1/whoami", { ip: quiet })).status).toBe(401);
    expect((await call("GET", "/v1/whoami", { key: org.secret, ip: quiet })).status).toBe(200);
  });

  test("the count is shared through the database: a process that has not seen the failures still refuses", async () => {
    forgetAuthFailures();
    const ip = freshIpv6();
    const bad = `svc_live_${"y".repeat(40)}`;
    for (let i = 0; i < 5; i++) expect((await call("GET", "/v1/whoami", { key: bad, ip })).status).toBe(401);
    // Another process (simulated: this one's memory forgotten) sees the shared count on its next failure.
    forgetAuthFailures();
    const sameNetwork = ip.replace(/::1$/, "::2");
    expect((await call("GET", "/v1/whoami", { key: bad, ip: sameNetwork })).status).toBe(429);
  });

  test("an unknown client address is not limited by address (it is not one client)", async () => {
    forgetAuthFailures();
    for (let i = 0; i < 8; i++) expect((await call("GET", "/v1/whoami", { key: "nope", ip: null })).status).toBe(401);
  });
});
