import { and, eq } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { budgets, spendHolds } from "@/db/schema";
import { budgetLimitsSchema } from "./contracts";
import { type BudgetTrip, BudgetTripped, refuseOnTrip, usageOf } from "./enforce";

/**
 * Paid holds against the account budget's `maxSpendPerDayCents` (letters and calls will take one
 * before they are handed to a paid provider). A hold locks the account budget row, sums what was
 * held or captured in the last 24 hours and refuses (`spend_cap_reached`, `budget.tripped`) when
 * the new amount would go over the cap; a cap of 0 refuses every hold. Without an enabled account
 * budget with a spend cap, holds are recorded and never refused.
 */

export type SpendHold = typeof spendHolds.$inferSelect;

/**
 * Takes a hold inside the caller's transaction (the paid work's own), so a rollback releases it.
 * Throws `BudgetTripped` when over the cap; callers outside a transaction use `holdSpend`.
 */
export async function holdSpendInTx(
  tx: DbOrTx,
  orgId: string,
  amountCents: number,
  reference: string,
  now: Date = new Date(),
): Promise<SpendHold> {
  if (!Number.isInteger(amountCents) || amountCents < 0)
    throw new Error(`a hold is a whole, non-negative number of cents (got ${amountCents})`);
  const [budget] = await tx
    .select()
    .from(budgets)
    .where(and(eq(budgets.orgId, orgId), eq(budgets.scope, "account"), eq(budgets.enabled, true)))
    .for("update");
  if (budget) {
    const parsed = budgetLimitsSchema.safeParse(budget.limits);
    const cap = parsed.success ? parsed.data.maxSpendPerDayCents : 0; // unreadable limits: fail closed
    if (cap !== null) {
      const usage = await usageOf(tx, budget, now);
      if (cap === 0 || usage.spentLast24hCents + amountCents > cap) {
        const trip: BudgetTrip = {
          budget,
          limit: "maxSpendPerDayCents",
          limitValue: cap,
          usage,
          requested: amountCents,
          inboxId: null,
        };
        throw new BudgetTripped(trip);
      }
    }
  }
  const [hold] = await tx.insert(spendHolds).values({ orgId, amountCents, reference, createdAt: now }).returning();
  if (!hold) throw new Error("spend hold insert returned nothing");
  return hold;
}

/** Takes a hold in a transaction of its own; over the cap: 429 `spend_cap_reached` and `budget.tripped`. */
export function holdSpend(
  db: Db,
  orgId: string,
  amountCents: number,
  reference: string,
  now: Date = new Date(),
): Promise<SpendHold> {
  return refuseOnTrip(db, () => db.transaction((tx) => holdSpendInTx(tx, orgId, amountCents, reference, now)));
}

/** Settles a hold: `captured` (charged, keeps counting) or `released` (no longer counts). Only a `held` hold moves. */
export async function settleSpend(
  db: DbOrTx,
  holdId: string,
  outcome: "captured" | "released",
): Promise<SpendHold | null> {
  const [row] = await db
    .update(spendHolds)
    .set({ status: outcome, settledAt: new Date() })
    .where(and(eq(spendHolds.id, holdId), eq(spendHolds.status, "held")))
    .returning();
  return row ?? null;
}
