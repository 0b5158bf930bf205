import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, test } from "vitest";
import { MAX_CHECKS_PER_PROCESS, passwordCheckStats, SHARE_PASSWORD_LIMITS } from "@/lib/buckets/share-throttle";
import { newShareLink } from "./bucket-helpers";
import { call, callRaw, newOrg, type TestOrg } from "./harness";

/**
 * Share-link passwords cannot be guessed (issue 22, finding 4): wrong passwords are counted per link
 * and per address in the shared store and lock the link (or the address) out, the right password
 * included, with 429 and Retry-After; concurrent password checks are capped per process and per
 * link, the excess refused at once without an Argon2 hash. No timing is asserted: the cap is.
 */
let org: TestOrg;
beforeAll(async () => {
  org = await newOrg();
});

/** A documentation address no other test uses (each call a new one), so shared counts start at zero. */
const freshIp = () => `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}::7`;
const tokenOf = (url: string) => new URL(url).pathname.split("/").pop() ?? "";
const guess = (token: string, password: string, ip: string) =>
  callRaw("POST", `/d/${token}`, {
    ip,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    rawBody: new URLSearchParams({ password }).toString(),
  });

async function passwordLink(password: string) {
  const { link, bucketId, objectId } = await newShareLink(org, { password });
  return { token: tokenOf(link.downloadUrl), id: link.id as string, bucketId, objectId };
}

describe("share-link passwords", () => {
  test("30 wrong passwords: 10 are answered 403, then the link is locked out (429, Retry-After), the right password too", async () => {
    const link = await passwordLink("correct horse");
    const ip = freshIp();
    const statuses: number[] = [];
    const retryAfter: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await guess(link.token, `wrong-${i}`, ip);
      statuses.push(res.status);
      if (res.status === 429) retryAfter.push(Number(res.headers.get("retry-after")));
    }
    const limit = SHARE_PASSWORD_LIMITS.perLink.limit;
    expect(statuses).toEqual([...Array(limit).fill(403), ...Array(30 - limit).fill(429)]);
    for (const s of retryAfter) {
      expect(s).toBeGreaterThanOrEqual(1);
      expect(s).toBeLessThanOrEqual(SHARE_PASSWORD_LIMITS.perLink.windowSeconds);
    }
    // Locked: the right password is refused too, from this address and from any other.
    for (const from of [ip, freshIp()]) {
      const right = await guess(link.token, "correct horse", from);
      expect(right.status).toBe(429);
      expect(Number(right.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(await right.text()).toContain("Too many wrong passwords");
    }
    // The owner sees the refusals in the link's opens.
    const opens = await call(
      "GET",
      `/v1/buckets/${link.bucketId}/objects/${link.objectId}/share-links/${link.id}/opens`,
      { key: org.secret },
    );
    const outcomes = (opens.body.data as { outcome: string }[]).map((o) => o.outcome);
    expect(outcomes.filter((o) => o === "wrong_password")).toHaveLength(limit);
    expect(outcomes.filter((o) => o === "locked_out").length).toBeGreaterThanOrEqual(30 - limit);
  }, 120_000);

  test("one address guessing across many links is locked out everywhere; other addresses are not", async () => {
    const perClient = SHARE_PASSWORD_LIMITS.perClient.limit;
    const perLink = SHARE_PASSWORD_LIMITS.perLink.limit;
    const ip = freshIp();
    const links = [];
    for (let i = 0; i < Math.ceil(perClient / (perLink - 1)); i++) links.push(await passwordLink(`pw-${i}`));
    let failures = 0;
    for (const link of links)
      for (let i = 0; i < perLink - 1 && failures < perClient; i++, failures++)
        expect((await guess(link.token, "nope", ip)).status).toBe(403);
    const fresh = await passwordLink("pw-fresh");
    const locked = await guess(fresh.token, "pw-fresh", ip);
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).not.toBeNull();
    expect((await guess(fresh.token, "pw-fresh", freshIp())).status).toBe(200);
  }, 120_000);

  test("concurrent guessers are capped: at most the process's password checks at once, the rest 429 without hashing; another organization's whoami answers", async () => {
    const links = await Promise.all(Array.from({ length: 4 }, (_, i) => passwordLink(`secret-${i}`)));
    const other = await newOrg();
    passwordCheckStats(true);
    const guesses = Array.from({ length: 32 }, (_, i) => {
      const link = links[i % links.length];
      return guess(link?.token ?? "", `guess-${i}`, freshIp());
    });
    const whoamis = Array.from({ length: 8 }, () => call("GET", "/v1/whoami", { key: other.secret }));
    const [answers, who] = await Promise.all([Promise.all(guesses), Promise.all(whoamis)]);
    const stats = passwordCheckStats();
    const statuses = answers.map((r) => r.status);
    for (const s of statuses) expect([403, 429]).toContain(s);
    const busy = answers.filter((r) => r.status === 429);
    expect(busy.length).toBeGreaterThan(0);
    for (const r of busy) expect(r.headers.get("retry-after")).toBe("1");
    // The cap, not a timing: never more Argon2 checks at once than the process allows, and every
    // guess beyond that was answered without one.
    expect(stats.peak).toBeLessThanOrEqual(MAX_CHECKS_PER_PROCESS);
    expect(stats.checks + stats.refusedBusy).toBe(32);
    expect(stats.checks).toBe(statuses.filter((s) => s === 403).length);
    expect(stats.inFlight).toBe(0);
    for (const w of who) expect(w.status).toBe(200);
  }, 120_000);
});
