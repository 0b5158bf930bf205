import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { budgets, messages, sendUsage, spendHolds, suppressions, webhookQueue } from "@/db/schema";
import { holdSpend, settleSpend } from "@/lib/budgets/spend";
import { call, newInbox, newKey, newOrg, type TestOrg } from "./harness";

/**
 * Budgets: the API (upsert by scope and subject), enforcement in the send path (exact under
 * concurrency, recipient-denominated rolling windows, the complaint stop, fail-closed), the
 * `budget.tripped` event, and paid holds under the account's daily spend cap.
 */

const put = (org: TestOrg, body: unknown) => call("PUT", "/v1/budgets", { key: org.secret, body });
const send = (secret: string, inboxId: string, to: string | string[], extra: Record<string, unknown> = {}) =>
  call("POST", "/v1/messages", { key: secret, body: { inboxId, to, subject: "budget", text: "hello", ...extra } });
const rcpt = (n: number) =>
  Array.from({ length: n }, (_, i) => `r${i}-${Math.random().toString(36).slice(2, 8)}@example.com`);

async function tripped(org: TestOrg) {
  const res = await call("GET", "/v1/events?type=budget.tripped&limit=100", { key: org.secret });
  expect(res.status).toBe(200);
  return res.body.data as { type: string; partitionKey: string; data: Record<string, any> }[];
}

async function outboundCount(orgId: string): Promise<number> {
  const db = await getDb();
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(messages)
    .where(and(eq(messages.orgId, orgId), eq(messages.direction, "outbound")));
  return row?.n ?? 0;
}

describe("the budgets API", () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await newOrg();
  });

  test("PUT upserts one budget per scope and subject; GET, list and DELETE; usage starts from real sends", async () => {
    const inbox = await newInbox(org);
    expect((await send(org.secret, inbox.id, rcpt(2))).status).toBe(200);
    const made = await put(org, { scope: "account", limits: { maxSendsPerDay: 100, hardStopOnComplaint: true } });
    expect(made.status).toBe(200);
    expect(made.body.budget).toMatchObject({
      object: "budget",
      scope: "account",
      scopeId: null,
      enabled: true,
      limits: {
        maxSendsPerDay: 100,
        maxNewRecipientsPerHour: null,
        hardStopOnComplaint: true,
        maxSpendPerDayCents: null,
      },
      usage: { sendsLast24h: 2, newRecipientsLastHour: 2, accountHasComplaint: false, spentLast24hCents: 0 },
    });
    const again = await put(org, { scope: "account", enabled: false, limits: { maxNewRecipientsPerHour: 5 } });
    expect(again.body.budget).toMatchObject({
      id: made.body.budget.id,
      enabled: false,
      limits: { maxSendsPerDay: null, maxNewRecipientsPerHour: 5 },
    });
    const key = await newKey(org, { scopes: ["messages:send"] });
    const keyBudget = await put(org, { scope: "key", scopeId: key.id, limits: { maxSendsPerDay: 3 } });
    expect(keyBudget.status).toBe(200);
    expect(keyBudget.body.budget).toMatchObject({ scope: "key", scopeId: key.id, usage: { sendsLast24h: 0 } });
    const passport = (await call("POST", "/v1/agents", { key: org.secret, body: { display: "Helper" } })).body.agent;
    const agent = await put(org, { scope: "agent", scopeId: passport.agentId, limits: { maxSendsPerDay: 3 } });
    expect(agent.body.budget).toMatchObject({ scope: "agent", scopeId: passport.agentId });

    const list = await call("GET", "/v1/budgets", { key: org.secret });
    expect(list.body.budgets.map((b: { scope: string }) => b.scope)).toEqual(["account", "key", "agent"]);
    const got = await call("GET", `/v1/budgets/${keyBudget.body.budget.id}`, { key: org.secret });
    expect(got.body.budget.id).toBe(keyBudget.body.budget.id);
    expect((await call("DELETE", `/v1/budgets/${agent.body.budget.id}`, { key: org.secret })).body).toEqual({
      deleted: true,
      id: agent.body.budget.id,
    });
    expect((await call("GET", `/v1/budgets/${agent.body.budget.id}`, { key: org.secret })).status).toBe(404);
    const audit = await call("GET", "/v1/audit-logs?limit=100", { key: org.secret });
    expect(audit.body.logs.map((l: { action: string }) => l.action)).toEqual(
      expect.arrayContaining(["budget.created", "budget.updated", "budget.deleted"]),
    );
  });

  test("bad budgets are refused naming the field: no limit, subject rules, spend cap off the account, another organization's key", async () => {
    const cases: [unknown, number, string][] = [
      [{ scope: "account", limits: {} }, 400, "limits"],
      [{ scope: "account", limits: { hardStopOnComplaint: false } }, 400, "limits"],
      [{ scope: "account", scopeId: org.apiKeyId, limits: { maxSendsPerDay: 1 } }, 400, "scopeId"],
      [{ scope: "key", limits: { maxSendsPerDay: 1 } }, 400, "scopeId"],
      [{ scope: "key", scopeId: org.apiKeyId, limits: { maxSpendPerDayCents: 1 } }, 400, "limits.maxSpendPerDayCents"],
      [{ scope: "account", limits: { maxSendsPerDay: 1_000_001 } }, 400, "limits.maxSendsPerDay"],
      [{ scope: "account", limits: { maxSendsPerDay: -1 } }, 400, "limits.maxSendsPerDay"],
      [{ scope: "team", limits: { maxSendsPerDay: 1 } }, 400, "scope"],
    ];
    for (const [body, status, param] of cases) {
      const res = await put(org, body);
      expect([res.status, res.body.error?.param], JSON.stringify(body)).toEqual([status, param]);
    }
    const other = await newOrg();
    const foreign = await put(org, { scope: "key", scopeId: other.apiKeyId, limits: { maxSendsPerDay: 1 } });
    expect([foreign.status, foreign.body.error.param]).toEqual([404, "scopeId"]);
  });
});

describe("enforcement in the send path", () => {
  test("100 concurrent sends under maxSendsPerDay = 10 accept exactly 10; the rest are 429 budget_exceeded with budget.tripped", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    const budget = (await put(org, { scope: "account", limits: { maxSendsPerDay: 10 } })).body.budget;
    const results = await Promise.all(Array.from({ length: 100 }, () => send(org.secret, inbox.id, rcpt(1))));
    const accepted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(accepted).toHaveLength(10);
    expect(refused).toHaveLength(90);
    for (const r of refused) expect(r.body.error).toMatchObject({ type: "rate_limit_error", code: "budget_exceeded" });
    expect(await outboundCount(org.orgId)).toBe(10);
    const got = await call("GET", `/v1/budgets/${budget.id}`, { key: org.secret });
    expect(got.body.budget.usage).toMatchObject({ sendsLast24h: 10, newRecipientsLastHour: 10 });
    const events = await tripped(org);
    expect(events).toHaveLength(90);
    expect(events[0]).toMatchObject({
      type: "budget.tripped",
      partitionKey: `budget:${budget.id}`,
      data: {
        budgetId: budget.id,
        budget: { id: budget.id, scope: "account", scopeId: null, limits: { maxSendsPerDay: 10 } },
        limit: "maxSendsPerDay",
        limitValue: 10,
        requested: 1,
        usage: { sendsLast24h: 10 },
      },
    });
  }, 120_000);

  test("recipient-denominated: a send counts every recipient; one that would cross the limit is refused whole", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    await put(org, { scope: "account", limits: { maxSendsPerDay: 5 } });
    expect((await send(org.secret, inbox.id, rcpt(3))).status).toBe(200);
    const over = await send(org.secret, inbox.id, rcpt(2), { cc: rcpt(1) });
    expect(over.status).toBe(429);
    expect((await send(org.secret, inbox.id, rcpt(2))).status).toBe(200);
    expect((await send(org.secret, inbox.id, rcpt(1))).status).toBe(429);
    expect(await outboundCount(org.orgId)).toBe(2);
    // A dry run over the budget is refused too, without an event.
    const before = (await tripped(org)).length;
    expect((await send(org.secret, inbox.id, rcpt(1), { dryRun: true })).status).toBe(429);
    expect(await tripped(org)).toHaveLength(before);
  });

  test("rolling windows: sends older than 24 hours stop counting; maxNewRecipientsPerHour counts the last hour's recipients", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    const db = await getDb();
    const ago = (h: number) => new Date(Date.now() - h * 3_600_000);
    await db.insert(sendUsage).values([
      { orgId: org.orgId, messageId: crypto.randomUUID(), recipients: 50, createdAt: ago(25) },
      { orgId: org.orgId, messageId: crypto.randomUUID(), recipients: 4, createdAt: ago(2) },
      { orgId: org.orgId, messageId: crypto.randomUUID(), recipients: 3, createdAt: ago(0.5) },
    ]);
    const b = (await put(org, { scope: "account", limits: { maxSendsPerDay: 10, maxNewRecipientsPerHour: 5 } })).body
      .budget;
    expect(b.usage).toMatchObject({ sendsLast24h: 7, newRecipientsLastHour: 3 });
    expect((await send(org.secret, inbox.id, rcpt(2))).status).toBe(200);
    const hour = await send(org.secret, inbox.id, rcpt(1));
    expect(hour.status).toBe(429);
    expect(hour.body.error.message).toContain("maxNewRecipientsPerHour");
    const event = (await tripped(org)).at(-1);
    expect(event?.data).toMatchObject({
      limit: "maxNewRecipientsPerHour",
      limitValue: 5,
      usage: { sendsLast24h: 9, newRecipientsLastHour: 5 },
    });
  });

  test("a key budget limits that key only; an agent budget naming a key limits it too", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    const limited = await newKey(org, { scopes: ["messages:send"] });
    const free = await newKey(org, { scopes: ["messages:send"] });
    await put(org, { scope: "key", scopeId: limited.id, limits: { maxSendsPerDay: 1 } });
    expect((await send(limited.secret, inbox.id, rcpt(1))).status).toBe(200);
    expect((await send(limited.secret, inbox.id, rcpt(1))).status).toBe(429);
    expect((await send(free.secret, inbox.id, rcpt(1))).status).toBe(200);
    await put(org, { scope: "agent", scopeId: free.id, limits: { maxNewRecipientsPerHour: 1 } });
    const agentTrip = await send(free.secret, inbox.id, rcpt(1));
    expect(agentTrip.status).toBe(429);
    expect(agentTrip.body.error.message).toContain("agent budget");
  });

  test("an agent budget limits the sends made as that agent: through its bound key or its bound inbox", async () => {
    const org = await newOrg();
    const boundInbox = await newInbox(org);
    const otherInbox = await newInbox(org);
    const agent = (await call("POST", "/v1/agents", { key: org.secret, body: { display: "Mailer" } })).body.agent;
    const bound = await call("POST", `/v1/agents/${agent.agentId}/bind`, {
      key: org.secret,
      body: { inboxId: boundInbox.id },
    });
    expect(bound.status).toBe(200);
    const b = (await put(org, { scope: "agent", scopeId: agent.agentId, limits: { maxSendsPerDay: 2 } })).body.budget;
    expect((await send(org.secret, boundInbox.id, rcpt(2))).status).toBe(200);
    expect((await send(org.secret, otherInbox.id, rcpt(1))).status).toBe(200);
    const over = await send(org.secret, boundInbox.id, rcpt(1));
    expect(over.status).toBe(429);
    expect((await call("GET", `/v1/budgets/${b.id}`, { key: org.secret })).body.budget.usage.sendsLast24h).toBe(2);
    const missing = await put(org, {
      scope: "agent",
      scopeId: "agt_0000000000000000000000000000000a",
      limits: { maxSendsPerDay: 1 },
    });
    expect([missing.status, missing.body.error.param]).toEqual([404, "scopeId"]);
  });

  test("hardStopOnComplaint refuses every send once the account has a complaint", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    await put(org, { scope: "account", limits: { hardStopOnComplaint: true } });
    expect((await send(org.secret, inbox.id, rcpt(1))).status).toBe(200);
    const db = await getDb();
    await db
      .insert(suppressions)
      .values({ orgId: org.orgId, address: "angry@example.com", reason: "complaint", lastEventAt: new Date() });
    const res = await send(org.secret, inbox.id, rcpt(1));
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe("budget_exceeded");
    const event = (await tripped(org)).at(-1);
    expect(event?.data).toMatchObject({ limit: "hardStopOnComplaint", usage: { accountHasComplaint: true } });
  });

  test("fail-closed: a budget whose limits cannot be read refuses the send, and nothing is stored", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    const b = (await put(org, { scope: "account", limits: { maxSendsPerDay: 10 } })).body.budget;
    const db = await getDb();
    await db.execute(sql`update budgets set limits = '{"maxSendsPerDay": "ten"}'::jsonb where id = ${b.id}`);
    const res = await send(org.secret, inbox.id, rcpt(1));
    expect(res.status).toBe(429);
    expect(res.body.error.message).toContain("could not be evaluated");
    expect(await outboundCount(org.orgId)).toBe(0);
    const event = (await tripped(org)).at(-1);
    expect(event?.data.limit).toBe("unevaluable");
  });

  test("a scheduled send reserves when accepted and gives it back when canceled; a disabled budget does not limit", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    const b = (await put(org, { scope: "account", limits: { maxSendsPerDay: 1 } })).body.budget;
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await send(org.secret, inbox.id, rcpt(1), { sendAt: later });
    expect(scheduled.status).toBe(200);
    expect((await send(org.secret, inbox.id, rcpt(1))).status).toBe(429);
    const cancel = await call("POST", `/v1/outbound-emails/${scheduled.body.id}/cancel`, { key: org.secret });
    expect(cancel.status).toBe(200);
    expect((await call("GET", `/v1/budgets/${b.id}`, { key: org.secret })).body.budget.usage.sendsLast24h).toBe(0);
    expect((await send(org.secret, inbox.id, rcpt(1))).status).toBe(200);
    await put(org, { scope: "account", enabled: false, limits: { maxSendsPerDay: 1 } });
    expect((await send(org.secret, inbox.id, rcpt(1))).status).toBe(200);
  });

  test("budget.tripped reaches the webhooks subscribed to it, in the transaction that records it", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    const hook = await call("POST", "/v1/webhooks", {
      key: org.secret,
      body: { url: "http://127.0.0.1:9/hook", events: ["budget.tripped"] },
    });
    expect(hook.status).toBe(200);
    await put(org, { scope: "account", limits: { maxSendsPerDay: 0 } });
    expect((await send(org.secret, inbox.id, rcpt(1))).status).toBe(429);
    const event = (await tripped(org)).at(-1);
    const db = await getDb();
    const queued = await db.select().from(webhookQueue).where(eq(webhookQueue.webhookId, hook.body.webhook.id));
    expect(queued.map((q) => q.eventId)).toEqual([(event as unknown as { eventId: string }).eventId]);
  });
});

describe("paid holds under maxSpendPerDayCents", () => {
  test("holds count until released; over the cap is spend_cap_reached with budget.tripped; 0 blocks every hold", async () => {
    const org = await newOrg();
    const db = await getDb();
    // No account budget: holds are recorded, never refused.
    const free = await holdSpend(db, org.orgId, 10_000, "letter:free");
    expect(free.status).toBe("held");
    await settleSpend(db, free.id, "released");
    await put(org, { scope: "account", limits: { maxSpendPerDayCents: 500 } });
    const a = await holdSpend(db, org.orgId, 300, "letter:a");
    await expect(holdSpend(db, org.orgId, 300, "letter:b")).rejects.toMatchObject({
      code: "spend_cap_reached",
      status: 429,
    });
    expect((await settleSpend(db, a.id, "released"))?.status).toBe("released");
    expect(await settleSpend(db, a.id, "captured")).toBeNull();
    const b = await holdSpend(db, org.orgId, 300, "letter:b");
    await settleSpend(db, b.id, "captured");
    await expect(holdSpend(db, org.orgId, 201, "letter:c")).rejects.toMatchObject({ code: "spend_cap_reached" });
    await holdSpend(db, org.orgId, 200, "letter:c");
    const event = (await tripped(org)).at(-1);
    expect(event?.data).toMatchObject({
      limit: "maxSpendPerDayCents",
      limitValue: 500,
      requested: 201,
      usage: { spentLast24hCents: 300 },
    });
    const budget = (await call("GET", "/v1/budgets", { key: org.secret })).body.budgets[0];
    expect(budget.usage.spentLast24hCents).toBe(500);

    await put(org, { scope: "account", limits: { maxSpendPerDayCents: 0 } });
    await expect(holdSpend(db, org.orgId, 0, "letter:zero")).rejects.toMatchObject({ code: "spend_cap_reached" });
    await expect(holdSpend(db, org.orgId, 1, "letter:one")).rejects.toMatchObject({ code: "spend_cap_reached" });
  });

  test("concurrent holds never exceed the cap", async () => {
    const org = await newOrg();
    const db = await getDb();
    await put(org, { scope: "account", limits: { maxSpendPerDayCents: 1000 } });
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, (_, i) => holdSpend(db, org.orgId, 100, `letter:${i}`)),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(10);
    const [sum] = await db
      .select({ cents: sql<number>`sum(amount_cents)::int` })
      .from(spendHolds)
      .where(eq(spendHolds.orgId, org.orgId));
    expect(sum?.cents).toBe(1000);
    expect(await db.select().from(budgets).where(eq(budgets.orgId, org.orgId))).toHaveLength(1);
  });
});
