"use server";

import { deleteBudget, listBudgets, setBudget } from "@/lib/budgets/operations";
import { actionError, isNextSignal, runAction } from "@/lib/console/action";
import { findBudget, mergeBudgetPatch } from "@/lib/console/budget-patch";
import { getConsole } from "@/lib/console/context";

const LABELS = {
  scopeId: "API key or agent",
  "limits.maxSendsPerDay": "sends per day",
  "limits.maxNewRecipientsPerHour": "recipients per hour",
  "limits.maxSpendPerDayCents": "spend per day (cents)",
};

/** Creates or replaces the budget of a scope and subject (`PUT /v1/budgets`). */
export async function setBudgetAction(input: unknown) {
  return runAction(setBudget, input, { labels: LABELS });
}

/**
 * Changes only the fields given (the form sends those a person changed): they are merged into the
 * budget of the same scope as it is now, and the whole is saved with `PUT /v1/budgets`.
 */
export async function patchBudgetAction(input: unknown) {
  try {
    const ctx = await getConsole();
    const { budgets } = await ctx.invoke(listBudgets);
    const value = input && typeof input === "object" ? (input as Record<string, unknown>) : {};
    const scopeId = typeof value.scopeId === "string" ? value.scopeId : null;
    const current = typeof value.scope === "string" ? findBudget(budgets, value.scope, scopeId) : null;
    return runAction(setBudget, mergeBudgetPatch(current, input), { labels: LABELS });
  } catch (err) {
    if (isNextSignal(err)) throw err;
    return actionError(err, LABELS);
  }
}

/** Deletes a budget (its usage is kept). */
export async function deleteBudgetAction(input: unknown) {
  return runAction(deleteBudget, input);
}
