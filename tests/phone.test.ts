import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, newInbox, newKey, newOrg, type TestOrg } from "./harness";

/**
 * Phone numbers (lib/phone) on the embedded simulated carrier: search, provision (active and
 * pending), PATCH (at least one property, explicit null unbinds or resets, voice ids), release,
 * the voice catalogue, cross-organization 404s, scopes and the spend cap.
 */

const provisioned: { org: TestOrg; id: string }[] = [];

beforeAll(async () => {
  // The first request loads every route module: once, before the tests time their own.
  await newInbox(await newOrg(), "warm");
}, 120_000);

afterAll(async () => {
  // Numbers are unique across the deployment: give them back (a persistent database keeps them).
  for (const p of provisioned) await call("POST", `/v1/phone/numbers/${p.id}/release`, { key: p.org.secret });
});

/** A random available number of `country` (numbers of earlier runs on a persistent database are taken). */
async function available(org: TestOrg, query = "country=US&type=local"): Promise<string> {
  const res = await call("GET", `/v1/phone/numbers/available?${query}&limit=100`, { key: org.secret });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const data = res.body.data as { phoneNumber: string }[];
  expect(data.length).toBeGreaterThan(0);
  return data[Math.floor(Math.random() * data.length)]?.phoneNumber ?? "";
}

async function provision(org: TestOrg, body: Record<string, unknown> = {}, query?: string) {
  const phoneNumber = await available(org, query);
  const res = await call("POST", "/v1/phone/numbers", { key: org.secret, body: { phoneNumber, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  provisioned.push({ org, id: res.body.id });
  return res.body;
}

describe("voices", () => {
  test("GET /v1/phone/voices lists the spec's 22 voices", async () => {
    const org = await newOrg();
    const res = await call("GET", "/v1/phone/voices", { key: org.secret });
    expect(res.status).toBe(200);
    const ids = (res.body.data as { voiceId: string }[]).map((v) => v.voiceId);
    expect(ids).toHaveLength(22);
    expect(ids).toContain("marin");
    expect(ids).toContain("cinder");
  });
});

describe("search", () => {
  test("the simulated carrier's US inventory: fictional 555-01xx numbers, purchasable, with costs", async () => {
    const org = await newOrg();
    const res = await call("GET", "/v1/phone/numbers/available?country=us&contains=202555", { key: org.secret });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    for (const n of res.body.data) {
      expect(n.phoneNumber).toMatch(/^\+120255501\d\d$/);
      expect(n).toMatchObject({ object: "phone_number.available", countryCode: "US", purchasable: true });
      expect(n.monthlyCostUsd).toBeGreaterThan(0);
    }
  });

  test("GB mobile numbers are the +44 7700 900xxx drama range, AU landlines (0x) 5550 xxxx; a bad country is 400", async () => {
    const org = await newOrg();
    const gb = await call("GET", "/v1/phone/numbers/available?country=GB&type=mobile&limit=5", { key: org.secret });
    expect(gb.status).toBe(200);
    expect(gb.body.data).toHaveLength(5);
    for (const n of gb.body.data) expect(n.phoneNumber).toMatch(/^\+447700900\d{3}$/);
    const au = await call("GET", "/v1/phone/numbers/available?country=AU&type=local", { key: org.secret });
    expect(au.status).toBe(200);
    expect(au.body.data.length).toBeGreaterThan(0);
    for (const n of au.body.data) {
      expect(n.phoneNumber).toMatch(/^\+61[23]55500[1]\d\d$/);
      expect(n).toMatchObject({ countryCode: "AU", numberType: "local", capabilities: ["voice"] });
    }
    const none = await call("GET", "/v1/phone/numbers/available?country=FR", { key: org.secret });
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
    const bad = await call("GET", "/v1/phone/numbers/available?country=USA", { key: org.secret });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("country");
  });
});

describe("provision, update, release", () => {
  test("provision: active with its costs; the same number again is 409; a number outside the inventory is 400", async () => {
    const org = await newOrg();
    const n = await provision(org);
    expect(n).toMatchObject({
      object: "phone_number",
      status: "active",
      countryCode: "US",
      numberType: "local",
      inboxId: null,
      requirements: {},
    });
    expect(n.monthlyCostUsd).toBe(1.15);
    expect(n.purchasedAt).not.toBeNull();
    const again = await call("POST", "/v1/phone/numbers", { key: org.secret, body: { phoneNumber: n.phoneNumber } });
    expect(again.status).toBe(409);
    const outside = await call("POST", "/v1/phone/numbers", { key: org.secret, body: { phoneNumber: "+14155550000" } });
    expect(outside.status).toBe(400);
    expect(outside.body.error.param).toBe("phoneNumber");
    // No longer offered.
    const search = await call("GET", `/v1/phone/numbers/available?country=US&contains=${n.phoneNumber.slice(1)}`, {
      key: org.secret,
    });
    expect(search.body.data).toEqual([]);
  });

  test("a GB number is pending with its outstanding requirements (not an error)", async () => {
    const org = await newOrg();
    const n = await provision(org, {}, "country=GB&type=mobile");
    expect(n.status).toBe("pending");
    expect(n.requirements.documents.length).toBeGreaterThan(0);
  });

  test("PATCH: empty body and unknown voice are 400; bind, set, then unbind and reset with explicit null", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org, "phone");
    const n = await provision(org);
    const url = `/v1/phone/numbers/${n.id}`;
    const empty = await call("PATCH", url, { key: org.secret, body: {} });
    expect(empty.status).toBe(400);
    const voice = await call("PATCH", url, { key: org.secret, body: { inboundVoice: "nightingale" } });
    expect(voice.status).toBe(400);
    expect(voice.body.error.param).toBe("inboundVoice");
    const unknownInbox = await call("PATCH", url, {
      key: org.secret,
      body: { inboxId: "0190a0a0-0000-7000-8000-000000000000" },
    });
    expect(unknownInbox.status).toBe(404);

    const bound = await call("PATCH", url, {
      key: org.secret,
      body: { inboxId: inbox.id, inboundVoice: "cedar", inboundGreeting: "Hello!", metadata: { team: "support" } },
    });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    expect(bound.body).toMatchObject({
      inboxId: inbox.id,
      inboundVoice: "cedar",
      inboundGreeting: "Hello!",
      metadata: { team: "support" },
    });

    // Only what is given changes; explicit null unbinds and resets.
    const unbound = await call("PATCH", url, { key: org.secret, body: { inboxId: null, inboundVoice: null } });
    expect(unbound.status).toBe(200);
    expect(unbound.body).toMatchObject({
      inboxId: null,
      inboundVoice: null,
      inboundGreeting: "Hello!",
      metadata: { team: "support" },
    });
    const read = await call("GET", url, { key: org.secret });
    expect(read.body).toMatchObject({ inboxId: null, inboundVoice: null });

    const audit = await call("GET", "/v1/audit-logs?limit=50", { key: org.secret });
    expect(audit.status).toBe(200);
    const actions = (audit.body.logs as { action: string }[]).map((a) => a.action);
    expect(actions).toContain("phone_number.provisioned");
    expect(actions).toContain("phone_number.updated");
  });

  test("release: released with releasedAt; no changes after; offered again; releasing twice answers it as it is", async () => {
    const org = await newOrg();
    const n = await provision(org);
    const released = await call("POST", `/v1/phone/numbers/${n.id}/release`, { key: org.secret });
    expect(released.status).toBe(200);
    expect(released.body.status).toBe("released");
    expect(released.body.releasedAt).not.toBeNull();
    const patch = await call("PATCH", `/v1/phone/numbers/${n.id}`, { key: org.secret, body: { metadata: {} } });
    expect(patch.status).toBe(409);
    const twice = await call("POST", `/v1/phone/numbers/${n.id}/release`, { key: org.secret });
    expect(twice.body.releasedAt).toBe(released.body.releasedAt);
    const search = await call("GET", `/v1/phone/numbers/available?country=US&contains=${n.phoneNumber.slice(1)}`, {
      key: org.secret,
    });
    expect(search.body.data.map((a: { phoneNumber: string }) => a.phoneNumber)).toEqual([n.phoneNumber]);
  });

  test("list: newest first, paginated", async () => {
    const org = await newOrg();
    const a = await provision(org);
    const b = await provision(org);
    const page = await call("GET", "/v1/phone/numbers?limit=1", { key: org.secret });
    expect(page.status).toBe(200);
    expect(page.body.data.map((n: { id: string }) => n.id)).toEqual([b.id]);
    expect(page.body.pagination.hasMore).toBe(true);
    const next = await call("GET", `/v1/phone/numbers?limit=1&cursor=${page.body.pagination.nextCursor}`, {
      key: org.secret,
    });
    expect(next.body.data.map((n: { id: string }) => n.id)).toEqual([a.id]);
  });
});

describe("access", () => {
  test("another organization's number is 404 on every verb", async () => {
    const owner = await newOrg();
    const other = await newOrg();
    const n = await provision(owner);
    const url = `/v1/phone/numbers/${n.id}`;
    expect((await call("GET", url, { key: other.secret })).status).toBe(404);
    expect((await call("PATCH", url, { key: other.secret, body: { metadata: { x: 1 } } })).status).toBe(404);
    expect((await call("POST", `${url}/release`, { key: other.secret })).status).toBe(404);
    const list = await call("GET", "/v1/phone/numbers", { key: other.secret });
    expect(list.body.data).toEqual([]);
    // And binding one's number to another organization's inbox is 404 too.
    const foreignInbox = await newInbox(other, "foreign");
    expect((await call("PATCH", url, { key: owner.secret, body: { inboxId: foreignInbox.id } })).status).toBe(404);
    expect((await call("GET", url, { key: owner.secret })).body.status).toBe("active");
  });

  test("scopes: phone:read reads but does not provision; the phone bundle does", async () => {
    const org = await newOrg();
    const reader = await newKey(org, { scopes: ["phone:read"] });
    expect((await call("GET", "/v1/phone/numbers", { key: reader.secret })).status).toBe(200);
    expect((await call("GET", "/v1/phone/voices", { key: reader.secret })).status).toBe(200);
    const number = await available(org);
    const refused = await call("POST", "/v1/phone/numbers", { key: reader.secret, body: { phoneNumber: number } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("scope_missing");
    const writer = await newKey(org, { scopes: ["phone"] });
    const made = await call("POST", "/v1/phone/numbers", { key: writer.secret, body: { phoneNumber: number } });
    expect(made.status).toBe(201);
    provisioned.push({ org, id: made.body.id });
    const noPhone = await newKey(org, { scopes: ["messages:read"] });
    expect((await call("GET", "/v1/phone/numbers", { key: noPhone.secret })).status).toBe(403);
  });

  test("a spend cap of 0 refuses provisioning (429 spend_cap_reached) and records nothing", async () => {
    const org = await newOrg();
    const cap = await call("PUT", "/v1/budgets", {
      key: org.secret,
      body: { scope: "account", limits: { maxSpendPerDayCents: 0 } },
    });
    expect(cap.status, JSON.stringify(cap.body)).toBe(200);
    const number = await available(org);
    const res = await call("POST", "/v1/phone/numbers", { key: org.secret, body: { phoneNumber: number } });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe("spend_cap_reached");
    expect((await call("GET", "/v1/phone/numbers", { key: org.secret })).body.data).toEqual([]);
  });
});
