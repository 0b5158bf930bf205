/**
 * The budgets form's PATCH semantics over `PUT /v1/budgets` (which replaces every limit): the form
 * sends only the fields a person changed, and the console merges them into the budget as it is
 * when the save arrives, so re-saving one field never removes the others.
 */
export const BUDGET_LIMIT_KEYS = [
  "maxSendsPerDay",
  "maxNewRecipientsPerHour",
  "hardStopOnComplaint",
  "maxSpendPerDayCents",
] as const;
export type BudgetLimitKey = (typeof BUDGET_LIMIT_KEYS)[number];

export interface BudgetLimitsLike {
  maxSendsPerDay: number | null;
  maxNewRecipientsPerHour: number | null;
  hardStopOnComplaint: boolean | null;
  maxSpendPerDayCents: number | null;
}

export interface BudgetLike {
  scope: string;
  scopeId: string | null;
  enabled: boolean;
  limits: BudgetLimitsLike;
}

/** The form's values, compared loosely: empty is null, a cleared checkbox is "no hard stop" (null). */
type FormLimits = { [K in BudgetLimitKey]?: number | string | boolean | null };

const same = (a: unknown, b: unknown) =>
  (a ?? null) === (b ?? null) || (a === false && b === null) || (a === null && b === false);

/**
 * The fields of `submitted` that differ from what the form showed (`shown`, the budget's limits when
 * the page was read, or nothing for a new budget). `enabled` is included only when it changed.
 */
export function changedBudgetFields(
  shown: Pick<BudgetLike, "enabled" | "limits"> | null,
  submitted: { enabled: boolean; limits: FormLimits },
): { enabled?: boolean; limits: FormLimits } {
  const limits: FormLimits = {};
  for (const key of BUDGET_LIMIT_KEYS) {
    if (!(key in submitted.limits)) continue;
    const value = submitted.limits[key];
    if (!shown || !same(shown.limits[key], value)) limits[key] = value;
  }
  return { ...(!shown || shown.enabled !== submitted.enabled ? { enabled: submitted.enabled } : {}), limits };
}

/** The budget of a scope and subject among `budgets` (the account's has no subject). */
export function findBudget<B extends Pick<BudgetLike, "scope" | "scopeId">>(
  budgets: readonly B[],
  scope: string,
  scopeId: string | null | undefined,
): B | null {
  return budgets.find((b) => b.scope === scope && (scope === "account" || b.scopeId === (scopeId ?? null))) ?? null;
}

/**
 * The `PUT /v1/budgets` body for a patch: the current budget's limits and `enabled` with the changed
 * fields over them (a new budget: the changed fields alone, enabled unless said otherwise). Input
 * that is not the expected shape is passed on as it is, for the operation's own validation to refuse.
 */
export function mergeBudgetPatch(current: BudgetLike | null, patch: unknown): unknown {
  if (!patch || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const p = patch as Record<string, unknown>;
  const changes = p.limits;
  if (changes !== undefined && (!changes || typeof changes !== "object" || Array.isArray(changes))) return patch;
  const limits: Record<string, unknown> = {};
  for (const key of BUDGET_LIMIT_KEYS) {
    const base = current?.limits[key] ?? null;
    if (base !== null) limits[key] = base;
  }
  Object.assign(limits, changes ?? {});
  return {
    ...p,
    enabled: typeof p.enabled === "boolean" ? p.enabled : (current?.enabled ?? true),
    limits,
  };
}
