import { describe, expect, test } from "vitest";
import { brokenLimit, type BudgetUsage } from "@/lib/budgets/enforce";

/**
 * `brokenLimit`: the send check's decision (which limit a send of N recipients would break), which
 * the console's budgets page also asks with N = 1 to show a budget as tripped.
 */
const usage = (u: Partial<BudgetUsage> = {}): BudgetUsage => ({
  sendsLast24h: 0,
  newRecipientsLastHour: 0,
  accountHasComplaint: false,
  spentLast24hCents: 0,
  ...u,
});
const limits = (l: Record<string, unknown> = {}) => ({
  maxSendsPerDay: null,
  maxNewRecipientsPerHour: null,
  hardStopOnComplaint: null,
  maxSpendPerDayCents: null,
  ...l,
});

describe("brokenLimit", () => {
  test("below the daily limit: nothing broken; at it, the next recipient breaks it", () => {
    expect(brokenLimit(limits({ maxSendsPerDay: 10 }), usage({ sendsLast24h: 9 }), 1)).toBeNull();
    expect(brokenLimit(limits({ maxSendsPerDay: 10 }), usage({ sendsLast24h: 10 }), 1)).toEqual({
      limit: "maxSendsPerDay",
      limitValue: 10,
    });
    // Recipient-denominated: three recipients do not fit in the last two.
    expect(brokenLimit(limits({ maxSendsPerDay: 10 }), usage({ sendsLast24h: 8 }), 3)).toEqual({
      limit: "maxSendsPerDay",
      limitValue: 10,
    });
  });

  test("the hourly limit, and 0 refuses everything", () => {
    expect(
      brokenLimit(limits({ maxNewRecipientsPerHour: 5 }), usage({ newRecipientsLastHour: 5, sendsLast24h: 5 }), 1),
    ).toEqual({ limit: "maxNewRecipientsPerHour", limitValue: 5 });
    expect(brokenLimit(limits({ maxSendsPerDay: 0 }), usage(), 1)).toEqual({ limit: "maxSendsPerDay", limitValue: 0 });
  });

  test("the complaint stop only when set and the account has a complaint", () => {
    expect(brokenLimit(limits({ hardStopOnComplaint: true }), usage(), 1)).toBeNull();
    expect(brokenLimit(limits({ hardStopOnComplaint: null }), usage({ accountHasComplaint: true }), 1)).toBeNull();
    expect(brokenLimit(limits({ hardStopOnComplaint: true }), usage({ accountHasComplaint: true }), 1)).toEqual({
      limit: "hardStopOnComplaint",
      limitValue: true,
    });
  });

  test("limits that do not parse break (fail-closed)", () => {
    expect(brokenLimit({ maxSendsPerDay: "ten" }, usage(), 1)).toEqual({ limit: "unevaluable", limitValue: null });
    expect(brokenLimit(null, usage(), 1)).toEqual({ limit: "unevaluable", limitValue: null });
  });
});
