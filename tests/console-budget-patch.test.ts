import { describe, expect, it } from "vitest";
import { changedBudgetFields, findBudget, mergeBudgetPatch } from "@/lib/console/budget-patch";

const current = {
  scope: "account",
  scopeId: null,
  enabled: true,
  limits: { maxSendsPerDay: 1000, maxNewRecipientsPerHour: 200, hardStopOnComplaint: true, maxSpendPerDayCents: 500 },
};

describe("the budgets form's PATCH semantics", () => {
  it("sends only the fields changed from what the form showed", () => {
    const changed = changedBudgetFields(current, {
      enabled: true,
      limits: { maxSendsPerDay: 50, maxNewRecipientsPerHour: 200, hardStopOnComplaint: true, maxSpendPerDayCents: 500 },
    });
    expect(changed).toEqual({ limits: { maxSendsPerDay: 50 } });
  });

  it("an emptied limit and a cleared checkbox are changes; an unchanged empty one is not", () => {
    const shown = {
      enabled: true,
      limits: { ...current.limits, maxSpendPerDayCents: null, hardStopOnComplaint: null },
    };
    const changed = changedBudgetFields(shown, {
      enabled: false,
      limits: {
        maxSendsPerDay: null,
        maxNewRecipientsPerHour: 200,
        hardStopOnComplaint: null,
        maxSpendPerDayCents: null,
      },
    });
    expect(changed).toEqual({ enabled: false, limits: { maxSendsPerDay: null } });
  });

  it("a new budget sends every field", () => {
    expect(changedBudgetFields(null, { enabled: true, limits: { maxSendsPerDay: 5 } })).toEqual({
      enabled: true,
      limits: { maxSendsPerDay: 5 },
    });
  });

  it("merges the changes into the budget as it is now, keeping the others", () => {
    expect(mergeBudgetPatch(current, { scope: "account", limits: { maxNewRecipientsPerHour: 7 } })).toEqual({
      scope: "account",
      enabled: true,
      limits: { maxSendsPerDay: 1000, maxNewRecipientsPerHour: 7, hardStopOnComplaint: true, maxSpendPerDayCents: 500 },
    });
    expect(mergeBudgetPatch(current, { scope: "account", enabled: false, limits: { maxSendsPerDay: null } })).toEqual({
      scope: "account",
      enabled: false,
      limits: {
        maxSendsPerDay: null,
        maxNewRecipientsPerHour: 200,
        hardStopOnComplaint: true,
        maxSpendPerDayCents: 500,
      },
    });
    expect(mergeBudgetPatch(null, { scope: "key", scopeId: "k", limits: { maxSendsPerDay: 3 } })).toEqual({
      scope: "key",
      scopeId: "k",
      enabled: true,
      limits: { maxSendsPerDay: 3 },
    });
  });

  it("passes malformed input through for the operation to refuse", () => {
    expect(mergeBudgetPatch(current, "x")).toBe("x");
    expect(mergeBudgetPatch(current, { scope: "account", limits: [1] })).toEqual({ scope: "account", limits: [1] });
  });

  it("finds the budget of a scope and subject", () => {
    const key = { ...current, scope: "key", scopeId: "k1" };
    expect(findBudget([current, key], "key", "k1")).toBe(key);
    expect(findBudget([current, key], "key", "k2")).toBeNull();
    expect(findBudget([key, current], "account", undefined)).toBe(current);
  });
});
