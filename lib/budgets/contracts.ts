import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { isoDate, uuidParam } from "@/lib/core/schemas";

/**
 * Budgets (spec: Budget, BudgetLimits, BudgetUsage): fail-closed ceilings enforced in the send
 * path, for the whole account, one API key or one agent. `PUT /v1/budgets` upserts by scope and
 * scopeId (endpoints.md).
 */
const tag = "Budgets";

export const BUDGET_SCOPES = ["account", "key", "agent"] as const;
/** The largest value a numeric limit takes (the console's inputs carry it too). */
export const BUDGET_LIMIT_MAX = 1_000_000;
const limit = z.int().min(0).max(BUDGET_LIMIT_MAX).nullable();

export const budgetLimitsSchema = z.object({
  maxSendsPerDay: limit.describe(
    "Recipients per rolling 24 hours (a send to three recipients counts three). `0` refuses every send.",
  ),
  maxNewRecipientsPerHour: limit.describe("Recipients per rolling hour; every recipient of each send counts."),
  hardStopOnComplaint: z
    .boolean()
    .nullable()
    .describe("When true, every send under the budget is refused once the account has any recorded complaint."),
  maxSpendPerDayCents: limit.describe(
    "Account budgets only: USD cents of paid holds (letters, calls) per rolling 24 hours; `0` blocks every paid hold (`spend_cap_reached`).",
  ),
});

export const budgetUsageSchema = z.object({
  sendsLast24h: z.int(),
  newRecipientsLastHour: z.int(),
  accountHasComplaint: z.boolean(),
  spentLast24hCents: z
    .int()
    .describe("Held and captured paid amounts of the last 24 hours (account budgets; 0 for the others)."),
});

export const budgetSchema = z.object({
  object: z.literal("budget"),
  id: z.uuid(),
  scope: z.enum(BUDGET_SCOPES),
  scopeId: z
    .string()
    .nullable()
    .describe(
      "Null for the account; the API key id for `key`; the agent (`agt_…` or the agent's API key id) for `agent`.",
    ),
  enabled: z.boolean(),
  limits: budgetLimitsSchema,
  usage: budgetUsageSchema,
  createdAt: isoDate,
  updatedAt: isoDate,
});

const limitInput = z.int().min(0).max(BUDGET_LIMIT_MAX).nullable().optional();
export const budgetSetBody = z.strictObject({
  scope: z.enum(BUDGET_SCOPES),
  scopeId: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .nullable()
    .optional()
    .describe("Required for `key` (an API key id of this organization) and `agent`; omitted or null for `account`."),
  enabled: z.boolean().default(true),
  limits: z.strictObject({
    maxSendsPerDay: limitInput,
    maxNewRecipientsPerHour: limitInput,
    hardStopOnComplaint: z.boolean().nullable().optional(),
    maxSpendPerDayCents: limitInput,
  }),
});
export type BudgetSetInput = z.infer<typeof budgetSetBody>;

const one = z.object({ budget: budgetSchema });
const params = z.strictObject({ budgetId: uuidParam });

export const listBudgets = defineContract({
  id: "listBudgets",
  method: "GET",
  path: "/v1/budgets",
  access: "budgets:read",
  tag,
  summary: "List budgets",
  description: "Every budget of the organization with its current usage (oldest first).",
  response: z.object({ budgets: z.array(budgetSchema) }),
});

export const setBudget = defineContract({
  id: "setBudget",
  method: "PUT",
  path: "/v1/budgets",
  access: "budgets:write",
  tag,
  summary: "Create or replace a budget",
  description:
    "Upserts the budget of `scope` and `scopeId`: its limits are replaced as given (an omitted limit is none). At least one limit is required (`maxSendsPerDay`, `maxNewRecipientsPerHour`, `maxSpendPerDayCents`, or `hardStopOnComplaint: true`). A send over an enabled budget is refused with 429 `budget_exceeded` and emits `budget.tripped`.",
  body: budgetSetBody,
  example: {
    scope: "account",
    limits: { maxSendsPerDay: 1000, maxNewRecipientsPerHour: 200, hardStopOnComplaint: true },
  },
  errors: ["resource_not_found"],
  response: one,
});

export const getBudget = defineContract({
  id: "getBudget",
  method: "GET",
  path: "/v1/budgets/{budgetId}",
  access: "budgets:read",
  tag,
  summary: "Get a budget",
  params,
  response: one,
});

export const deleteBudget = defineContract({
  id: "deleteBudget",
  method: "DELETE",
  path: "/v1/budgets/{budgetId}",
  access: "budgets:write",
  tag,
  summary: "Delete a budget",
  description: "Sends under it are no longer limited by it; their usage is kept (a new budget starts from it).",
  params,
  response: z.object({ deleted: z.literal(true), id: z.uuid() }),
});
