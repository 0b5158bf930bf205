import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { phoneNumbers } from "@/db/schema";
import { BudgetTripped, recordTrip } from "@/lib/budgets/enforce";
import { holdSpendInTx, settleSpend } from "@/lib/budgets/spend";
import { log } from "@/lib/log";
import { telephony } from "@/lib/providers/telephony";
import { unbindSms } from "./number";

/**
 * The monthly cost of numbers. Provisioning holds setup plus the first month (`paid_months` 1);
 * a month is paid from the number's anchor (`purchased_at`, else `created_at`) on the same day of
 * the month (Postgres' calendar months: Jan 31 + 1 month is Feb 28/29). The billing sweep
 * (`bill-phone-numbers`, hourly) charges each live (`pending`/`active`) number whose paid period
 * ended: a captured spend hold of `monthly_cost_cents` (reference `phone_number:<id>:month:<n>`)
 * under the account budget's `maxSpendPerDayCents`, and `paid_months` + 1, in one transaction on
 * the number's locked row, so a period is charged once however many sweeps run (a parallel sweep
 * skips the locked row, a later one finds the period paid).
 *
 * When the cap refuses the charge the number is not kept for free silently: `budget.tripped` is
 * recorded (ledger, webhooks) and the charge is tried again a day later (`billing_retry_at`, once
 * the 24-hour window has room); the number keeps working in arrears for `BILLING_GRACE_DAYS` past
 * the end of its paid period, and a refusal after that releases it (`releasing`, its SMS binding
 * dropped, `release_reason` `unpaid`, then the provider's release and `released`).
 */

/** Days a number stays live unpaid after its paid period ended, while the charge is retried daily. */
export const BILLING_GRACE_DAYS = 7;
/** How long after a refused charge the next attempt waits. */
export const BILLING_RETRY_MS = 24 * 60 * 60 * 1000;
const BILLED_STATUSES = ["pending", "active"] as const;
/** Periods charged for one number in one sweep (catching up a sweep that did not run for months). */
const MAX_PERIODS_PER_SWEEP = 12;
const BATCH = 200;

/** The end of the number's paid period (computed in the database, calendar months from its anchor). */
const paidThrough = sql<Date>`(coalesce(${phoneNumbers.purchasedAt}, ${phoneNumbers.createdAt}) + make_interval(months => ${phoneNumbers.paidMonths}))`;

const at = (now: Date) => sql`${now.toISOString()}::timestamptz`;

const isDue = (now: Date) =>
  and(
    inArray(phoneNumbers.status, [...BILLED_STATUSES]),
    sql`${paidThrough} <= ${at(now)}`,
    or(isNull(phoneNumbers.billingRetryAt), lte(phoneNumbers.billingRetryAt, now)),
  );

export interface BillingSweep {
  charged: number;
  refused: number;
  released: number;
}

type Outcome = "charged" | "refused" | "released" | "skipped";

/**
 * Charges every number whose paid period ended (and whose retry time, if any, came), then finishes
 * the provider releases of numbers released as unpaid. Counts are of this run's periods charged,
 * refused and numbers released (every organization's: callers judge their own rows).
 */
export async function billDueNumbers(db: Db, now: Date = new Date()): Promise<BillingSweep> {
  const result: BillingSweep = { charged: 0, refused: 0, released: 0 };
  const due = await db
    .select({ id: phoneNumbers.id })
    .from(phoneNumbers)
    .where(isDue(now))
    .orderBy(asc(paidThrough))
    .limit(BATCH);
  for (const { id } of due) {
    for (let i = 0; i < MAX_PERIODS_PER_SWEEP; i++) {
      let outcome: Outcome;
      try {
        outcome = await billNumber(db, id, now);
      } catch (err) {
        log.warn("phone number billing failed", {
          numberId: id,
          err: err instanceof Error ? err.message : String(err),
        });
        break;
      }
      if (outcome === "skipped") break;
      result[outcome]++;
      if (outcome !== "charged") break;
    }
  }
  await finishUnpaidReleases(db);
  return result;
}

/** One period of one number: charged, refused (retry tomorrow) or, past the grace, released; `skipped` when not due (any more). */
export async function billNumber(db: Db, id: string, now: Date = new Date()): Promise<Outcome> {
  try {
    return await db.transaction(async (tx) => {
      // SKIP LOCKED: a parallel sweep charging this number now is left to it.
      const [row] = await tx
        .select()
        .from(phoneNumbers)
        .where(and(eq(phoneNumbers.id, id), isDue(now)))
        .for("update", { skipLocked: true });
      if (!row) return "skipped";
      const month = row.paidMonths + 1;
      if (row.monthlyCostCents > 0) {
        const hold = await holdSpendInTx(
          tx,
          row.orgId,
          row.monthlyCostCents,
          `phone_number:${row.id}:month:${month}`,
          now,
        );
        await settleSpend(tx, hold.id, "captured");
      }
      await tx
        .update(phoneNumbers)
        .set({ paidMonths: month, billingRetryAt: null, updatedAt: now })
        .where(eq(phoneNumbers.id, row.id));
      return "charged";
    });
  } catch (err) {
    if (!(err instanceof BudgetTripped)) throw err;
    await recordTrip(db, err.trip);
    return refused(db, id, now);
  }
}

/** After a refused charge: tried again in a day, or released as unpaid once past the grace. */
async function refused(db: Db, id: string, now: Date): Promise<Outcome> {
  const graceEnd = sql`${paidThrough} + make_interval(days => ${BILLING_GRACE_DAYS})`;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ row: phoneNumbers, overdue: sql<boolean>`${graceEnd} <= ${at(now)}` })
      .from(phoneNumbers)
      .where(and(eq(phoneNumbers.id, id), isDue(now)))
      .for("update", { skipLocked: true });
    if (!row) return "skipped";
    if (!row.overdue) {
      await tx
        .update(phoneNumbers)
        .set({ billingRetryAt: new Date(now.getTime() + BILLING_RETRY_MS), updatedAt: now })
        .where(eq(phoneNumbers.id, id));
      return "refused";
    }
    await unbindSms(tx, row.row.phoneNumber);
    await tx
      .update(phoneNumbers)
      .set({ status: "releasing", inboxId: null, releaseReason: "unpaid", billingRetryAt: null, updatedAt: now })
      .where(eq(phoneNumbers.id, id));
    log.warn("phone number released unpaid", { numberId: id, orgId: row.row.orgId, paidMonths: row.row.paidMonths });
    return "released";
  });
}

/** The provider's release of numbers released as unpaid (retried each sweep until it answers). */
async function finishUnpaidReleases(db: Db): Promise<number> {
  const rows = await db
    .select()
    .from(phoneNumbers)
    .where(and(eq(phoneNumbers.status, "releasing"), eq(phoneNumbers.releaseReason, "unpaid")))
    .limit(BATCH);
  let done = 0;
  for (const row of rows) {
    try {
      if (row.providerId) await telephony().release(row.providerId);
    } catch (err) {
      log.warn("provider release of an unpaid number failed", {
        numberId: row.id,
        err: err instanceof Error ? err.message : String(err),
      });
      continue;
    }
    const now = new Date();
    const [released] = await db
      .update(phoneNumbers)
      .set({ status: "released", releasedAt: now, updatedAt: now })
      .where(and(eq(phoneNumbers.id, row.id), eq(phoneNumbers.status, "releasing")))
      .returning({ id: phoneNumbers.id });
    if (released) done++;
  }
  return done;
}
