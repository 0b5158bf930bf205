"use server";

import { runAction } from "@/lib/console/action";
import { deleteBudget, setBudget } from "@/lib/budgets/operations";

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

/** Deletes a budget (its usage is kept). */
export async function deleteBudgetAction(input: unknown) {
  return runAction(deleteBudget, input);
}
