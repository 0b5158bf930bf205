"use client";

import { type FormEvent, useState } from "react";
import { BUDGET_LIMIT_MAX, budgetSetBody } from "@/lib/budgets/contracts";
import { deleteBudgetAction, patchBudgetAction, setBudgetAction } from "@/lib/console/actions/budgets";
import { changedBudgetFields, findBudget } from "@/lib/console/budget-patch";
import { inputRules } from "../contract-input";
import { ConfirmButton } from "../dialog";
import { Button, Field, FormError, numberValue, Select, useAction } from "../form";

type Scope = "account" | "key" | "agent";
export interface BudgetSubjectOption {
  id: string;
  label: string;
}
export interface BudgetLimitsValue {
  maxSendsPerDay: number | null;
  maxNewRecipientsPerHour: number | null;
  hardStopOnComplaint: boolean | null;
  maxSpendPerDayCents: number | null;
}

/** A limit input's value: empty is "no limit" (null). */
const limitValue = (data: FormData, name: string) => numberValue(data.get(name));
/** A limit as the input's starting text. */
const shownValue = (n: number | null | undefined) => (n === null || n === undefined ? "" : String(n));

/** The fields that show their own error (anything else is said above the Save button). */
const FIELDS = [
  "scope",
  "scopeId",
  "limits.maxSendsPerDay",
  "limits.maxNewRecipientsPerHour",
  "limits.maxSpendPerDayCents",
];
const numberRules = { type: "number", min: 0, max: BUDGET_LIMIT_MAX, step: 1, inputMode: "numeric" } as const;

export interface ExistingBudget {
  scope: Scope;
  scopeId: string | null;
  enabled: boolean;
  limits: BudgetLimitsValue;
}

/**
 * Sets the budget of one scope: the account, an API key or an agent. The fields start from the
 * budget that scope already has, and saving changes only the fields changed (the others keep their
 * value as it is when the save arrives); a limit emptied is removed.
 */
export function SetBudgetForm({
  keys,
  agents,
  budgets,
}: {
  keys: BudgetSubjectOption[] | null;
  agents: BudgetSubjectOption[] | null;
  budgets: ExistingBudget[];
}) {
  const [scope, setScope] = useState<Scope>("account");
  const options = scope === "key" ? keys : scope === "agent" ? agents : null;
  const [picked, setPicked] = useState<Record<Scope, string>>({ account: "", key: "", agent: "" });
  const scopeId = scope === "account" ? null : picked[scope] || options?.[0]?.id || "";
  const set = useAction(patchBudgetAction);
  const [saved, setSaved] = useState<string | null>(null);
  const err = (name: string) => set.fieldError(name);
  const current = findBudget(budgets, scope, scopeId);
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    setSaved(null);
    const changed = changedBudgetFields(current, {
      enabled: data.get("enabled") === "on",
      limits: {
        maxSendsPerDay: limitValue(data, "maxSendsPerDay"),
        maxNewRecipientsPerHour: limitValue(data, "maxNewRecipientsPerHour"),
        hardStopOnComplaint: data.get("hardStopOnComplaint") === "on" ? true : null,
        ...(scope === "account" ? { maxSpendPerDayCents: limitValue(data, "maxSpendPerDayCents") } : {}),
      },
    });
    set.mutate(
      { scope, ...(scope === "account" ? {} : { scopeId: scopeId || null }), ...changed },
      { onSuccess: () => setSaved(scope === "account" ? "Saved the account's budget." : `Saved the ${scope} budget.`) },
    );
  };
  const setPick = (value: string) => setPicked((p) => ({ ...p, [scope]: value }));
  // The limit fields start again from the chosen budget when the scope or subject changes (and after a save).
  const fieldsKey = `${scope}:${scopeId ?? ""}:${current ? JSON.stringify([current.enabled, current.limits]) : "new"}`;
  return (
    <form aria-label="Set a budget" noValidate onSubmit={onSubmit} className="space-y-3">
      <Select
        label="Applies to"
        name="scope"
        value={scope}
        onChange={(e) => setScope(e.target.value as Scope)}
        error={err("scope")}
      >
        <option value="account">The whole account</option>
        <option value="key">One API key</option>
        <option value="agent">One agent</option>
      </Select>
      {scope !== "account" ? (
        options && options.length > 0 ? (
          <Select
            key={scope}
            label={scope === "key" ? "API key" : "Agent"}
            name="scopeId"
            required
            value={scopeId ?? ""}
            onChange={(e) => setPick(e.target.value)}
            error={err("scopeId")}
          >
            {options.map((o) => (
              <option key={o.id} value={o.id}>
                {o.label}
              </option>
            ))}
          </Select>
        ) : (
          <Field
            key={scope}
            label={scope === "key" ? "API key id" : "Agent id (agt_…) or its API key id"}
            name="scopeId"
            {...inputRules(budgetSetBody, "scopeId")}
            required
            value={scopeId ?? ""}
            onChange={(e) => setPick(e.target.value)}
            error={err("scopeId")}
          />
        )
      ) : null}
      <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="budget-form-state">
        {current
          ? "Editing the budget this scope has: the fields show its limits now. Saving changes only the fields you change; the others keep their value."
          : "This scope has no budget yet: saving creates one with the limits you fill in."}
      </p>
      <div key={fieldsKey} className="space-y-3">
        <div className="grid gap-3 sm:grid-cols-2">
          <Field
            label="Recipients per day (rolling 24 hours)"
            name="maxSendsPerDay"
            {...numberRules}
            defaultValue={shownValue(current?.limits.maxSendsPerDay)}
            hint="Empty: no limit. 0 refuses every send."
            error={err("limits.maxSendsPerDay")}
          />
          <Field
            label="Recipients per hour"
            name="maxNewRecipientsPerHour"
            {...numberRules}
            defaultValue={shownValue(current?.limits.maxNewRecipientsPerHour)}
            hint="Every recipient of each send counts."
            error={err("limits.maxNewRecipientsPerHour")}
          />
          {scope === "account" ? (
            <Field
              label="Paid spend per day (US cents)"
              name="maxSpendPerDayCents"
              {...numberRules}
              defaultValue={shownValue(current?.limits.maxSpendPerDayCents)}
              hint="Letters and calls; 0 blocks every paid send."
              error={err("limits.maxSpendPerDayCents")}
            />
          ) : null}
        </div>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            name="hardStopOnComplaint"
            defaultChecked={current?.limits.hardStopOnComplaint === true}
          />{" "}
          Refuse every send once the account has a complaint
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="enabled" defaultChecked={current ? current.enabled : true} /> Enforced (a
          disabled budget only shows usage)
        </label>
      </div>
      <FormError failure={set.failure && !FIELDS.some((f) => set.failure?.fields[f]) ? set.failure : null} />
      {saved ? (
        <p role="status" className="text-sm text-emerald-800 dark:text-emerald-300">
          {saved}
        </p>
      ) : null}
      <Button type="submit" pending={set.isPending}>
        Save budget
      </Button>
    </form>
  );
}

/** Enforce/stop enforcing a budget (the same upsert with its limits) and delete it. */
export function BudgetActions({
  budget,
  label,
}: {
  budget: { id: string; scope: Scope; scopeId: string | null; enabled: boolean; limits: BudgetLimitsValue };
  label: string;
}) {
  const toggle = useAction(setBudgetAction);
  const remove = useAction(deleteBudgetAction);
  const { scope, scopeId, limits } = budget;
  return (
    <div className="space-y-1">
      <div className="flex flex-wrap gap-2">
        <Button
          type="button"
          variant="secondary"
          pending={toggle.isPending}
          aria-label={`${budget.enabled ? "Disable" : "Enable"} the budget of ${label}`}
          onClick={() =>
            toggle.mutate({ scope, ...(scope === "account" ? {} : { scopeId }), enabled: !budget.enabled, limits })
          }
        >
          {budget.enabled ? "Disable" : "Enable"}
        </Button>
        <ConfirmButton
          label="Delete"
          ariaLabel={`Delete the budget of ${label}`}
          title={`Delete the budget of ${label}?`}
          description="Sends are no longer limited by it. Its usage is kept: a new budget for the same scope starts from it."
          confirmLabel="Delete budget"
          pending={remove.isPending}
          onConfirm={() => remove.mutate({ budgetId: budget.id })}
        />
      </div>
      <FormError failure={toggle.failure ?? remove.failure} />
    </div>
  );
}
