import { and, eq, like, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { inboxConnections, phoneNumbers, spendHolds } from "@/db/schema";
import { BILLING_GRACE_DAYS, billDueNumbers } from "@/lib/phone/billing";
import { call, newInbox, newOrg, type TestOrg } from "./harness";

/**
 * The monthly cost of numbers (lib/phone/billing.ts): the sweep charges the next month once the
 * paid period ended, once per period however many sweeps run; under a spend cap that refuses it,
 * `budget.tripped`, a retry a day later, and the number released as unpaid past the grace. Other
 * files share the database and its numbers: every assertion reads this file's own rows.
 */

const provisioned: { org: TestOrg; id: string }[] = [];

beforeAll(async () => {
  await newInbox(await newOrg(), "warm");
}, 120_000);

afterAll(async () => {
  for (const p of provisioned) await call("POST", `/v1/phone/numbers/${p.id}/release`, { key: p.org.secret });
});

async function provision(org: TestOrg, body: Record<string, unknown> = {}): Promise<string> {
  const res = await call("GET", "/v1/phone/numbers/available?country=US&type=local&limit=100", { key: org.secret });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const data = res.body.data as { phoneNumber: string }[];
  const phoneNumber = data[Math.floor(Math.random() * data.length)]?.phoneNumber ?? "";
  const made = await call("POST", "/v1/phone/numbers", { key: org.secret, body: { phoneNumber, ...body } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  provisioned.push({ org, id: made.body.id });
  return made.body.id;
}

const numberRow = async (id: string) => {
  const [row] = await (await getDb()).select().from(phoneNumbers).where(eq(phoneNumbers.id, id));
  if (!row) throw new Error(`no number ${id}`);
  return row;
};

/** Moves the number's purchase back by `interval` (a Postgres interval), as if bought that long ago. */
const boughtAgo = async (id: string, interval: string) =>
  (await getDb())
    .update(phoneNumbers)
    .set({ purchasedAt: sql`now() - ${interval}::interval` })
    .where(eq(phoneNumbers.id, id));

const holdsOf = async (id: string) =>
  (await getDb())
    .select()
    .from(spendHolds)
    .where(like(spendHolds.reference, `phone_number:${id}:month:%`))
    .orderBy(spendHolds.reference);

const tripsOf = async (org: TestOrg) => {
  const res = await call("GET", "/v1/events?type=budget.tripped&limit=100", { key: org.secret });
  expect(res.status).toBe(200);
  return res.body.data as { data: { limit: string; requested: number } }[];
};

describe("monthly cost", () => {
  test("a number whose paid month ended is charged the next month (a captured hold); a second sweep in the period charges nothing", async () => {
    const org = await newOrg();
    const id = await provision(org);
    // Not due yet: a sweep leaves it alone.
    await billDueNumbers(await getDb());
    expect((await numberRow(id)).paidMonths).toBe(1);
    expect(await holdsOf(id)).toEqual([]);

    await boughtAgo(id, "1 month 1 day");
    await billDueNumbers(await getDb());
    const row = await numberRow(id);
    expect(row).toMatchObject({ paidMonths: 2, billingRetryAt: null, status: "active" });
    const holds = await holdsOf(id);
    expect(holds).toHaveLength(1);
    expect(holds[0]).toMatchObject({
      orgId: org.orgId,
      reference: `phone_number:${id}:month:2`,
      amountCents: row.monthlyCostCents,
      status: "captured",
    });
    expect(row.monthlyCostCents).toBeGreaterThan(0);

    await billDueNumbers(await getDb());
    expect((await numberRow(id)).paidMonths).toBe(2);
    expect(await holdsOf(id)).toHaveLength(1);
  });

  test("parallel sweeps charge each period once; a sweep that missed months catches up one charge per month", async () => {
    const org = await newOrg();
    const id = await provision(org);
    await boughtAgo(id, "3 months 2 days");
    const db = await getDb();
    await Promise.all(Array.from({ length: 4 }, () => billDueNumbers(db)));
    expect((await numberRow(id)).paidMonths).toBe(4);
    expect((await holdsOf(id)).map((h) => h.reference)).toEqual([
      `phone_number:${id}:month:2`,
      `phone_number:${id}:month:3`,
      `phone_number:${id}:month:4`,
    ]);
  });

  test("a released number is not charged", async () => {
    const org = await newOrg();
    const id = await provision(org);
    expect((await call("POST", `/v1/phone/numbers/${id}/release`, { key: org.secret })).status).toBe(200);
    await boughtAgo(id, "2 months");
    await billDueNumbers(await getDb());
    expect(await holdsOf(id)).toEqual([]);
  });
});

describe("monthly cost over the spend cap", () => {
  /** An organization whose cap the provisioning hold filled: the next month's charge is refused. */
  async function cappedNumber() {
    const org = await newOrg();
    const res = await call("GET", "/v1/phone/numbers/available?country=US&type=local&limit=1", { key: org.secret });
    const offer = res.body.data[0] as { monthlyCostUsd: number; setupCostUsd: number };
    const cap = Math.round((offer.monthlyCostUsd + offer.setupCostUsd) * 100);
    const budget = await call("PUT", "/v1/budgets", {
      key: org.secret,
      body: { scope: "account", limits: { maxSpendPerDayCents: cap } },
    });
    expect(budget.status, JSON.stringify(budget.body)).toBe(200);
    const inbox = await newInbox(org, "sms");
    const id = await provision(org, { inboxId: inbox.id });
    return { org, id };
  }

  test("refused: budget.tripped once, the number kept in arrears and tried again a day later, when the window has room it is charged", async () => {
    const { org, id } = await cappedNumber();
    await boughtAgo(id, "1 month 1 hour");
    const db = await getDb();
    const before = Date.now();
    await billDueNumbers(db);
    const refused = await numberRow(id);
    expect(refused).toMatchObject({ paidMonths: 1, status: "active", releaseReason: null });
    expect(refused.billingRetryAt?.getTime()).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 1000);
    expect(await holdsOf(id)).toEqual([]);
    const trips = await tripsOf(org);
    expect(trips).toHaveLength(1);
    expect(trips[0]?.data).toMatchObject({ limit: "maxSpendPerDayCents", requested: refused.monthlyCostCents });

    // The same day again: not retried, nothing recorded twice.
    await billDueNumbers(db);
    expect(await tripsOf(org)).toHaveLength(1);
    expect((await numberRow(id)).paidMonths).toBe(1);

    // A day later the provisioning hold left the 24-hour window: the retry charges the month.
    await db
      .update(spendHolds)
      .set({ createdAt: sql`now() - interval '25 hours'` })
      .where(and(eq(spendHolds.orgId, org.orgId), eq(spendHolds.reference, `phone_number:${id}`)));
    await db
      .update(phoneNumbers)
      .set({ billingRetryAt: sql`now() - interval '1 minute'` })
      .where(eq(phoneNumbers.id, id));
    await billDueNumbers(db);
    expect(await numberRow(id)).toMatchObject({ paidMonths: 2, billingRetryAt: null, status: "active" });
    expect((await holdsOf(id)).map((h) => h.status)).toEqual(["captured"]);
  });

  test(`still refused ${BILLING_GRACE_DAYS} days past the paid period: released as unpaid, its SMS binding dropped`, async () => {
    const { org, id } = await cappedNumber();
    const db = await getDb();
    const bound = await numberRow(id);
    expect(
      await db.select().from(inboxConnections).where(eq(inboxConnections.address, bound.phoneNumber)),
    ).toHaveLength(1);
    // Inside the grace: refused and kept.
    await boughtAgo(id, `1 month ${BILLING_GRACE_DAYS - 1} days`);
    await billDueNumbers(db);
    expect(await numberRow(id)).toMatchObject({ status: "active", paidMonths: 1 });
    // Past it, at the next retry: released.
    await boughtAgo(id, `1 month ${BILLING_GRACE_DAYS} days 1 hour`);
    await db
      .update(phoneNumbers)
      .set({ billingRetryAt: sql`now() - interval '1 minute'` })
      .where(eq(phoneNumbers.id, id));
    await billDueNumbers(db);
    const released = await numberRow(id);
    expect(released).toMatchObject({ status: "released", releaseReason: "unpaid", inboxId: null, paidMonths: 1 });
    expect(released.releasedAt).not.toBeNull();
    expect(await holdsOf(id)).toEqual([]);
    expect(await tripsOf(org)).toHaveLength(2);
    expect(
      await db.select().from(inboxConnections).where(eq(inboxConnections.address, bound.phoneNumber)),
    ).toHaveLength(0);
    const got = await call("GET", `/v1/phone/numbers/${id}`, { key: org.secret });
    expect(got.body).toMatchObject({ status: "released", inboxId: null });
  });
});
