import { and, asc, eq } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { agents, apiKeys, budgets, type StoredBudgetLimits } from "@/db/schema";
import { agentPublicId, agentUuid } from "@/lib/agents/agent";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { invalidRequest, notFound } from "@/lib/core/errors";
import type { BudgetSetInput } from "./contracts";
import { type BudgetRow, type BudgetUsage, usageOf } from "./enforce";
import { isUuid } from "@/lib/core/schemas";

export function toBudget(row: BudgetRow, usage: BudgetUsage) {
  return {
    object: "budget" as const,
    id: row.id,
    scope: row.scope,
    scopeId: row.scope === "account" ? null : row.scopeKey,
    enabled: row.enabled,
    limits: row.limits,
    usage,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function withUsage(db: DbOrTx, row: BudgetRow) {
  return toBudget(row, await usageOf(db, row));
}

export async function listBudgets(db: DbOrTx, principal: Principal) {
  const rows = await db
    .select()
    .from(budgets)
    .where(eq(budgets.orgId, principal.orgId))
    .orderBy(asc(budgets.createdAt), asc(budgets.id));
  return { budgets: await Promise.all(rows.map((r) => withUsage(db, r))) };
}

async function findBudget(db: DbOrTx, orgId: string, budgetId: string): Promise<BudgetRow> {
  const [row] = await db
    .select()
    .from(budgets)
    .where(and(eq(budgets.orgId, orgId), eq(budgets.id, budgetId)));
  if (!row) throw notFound("budget", "budgetId");
  return row;
}

export async function getBudget(db: DbOrTx, principal: Principal, budgetId: string) {
  return { budget: await withUsage(db, await findBudget(db, principal.orgId, budgetId)) };
}

/** The subject of a budget as stored: `""` for the account, an owned key id, an agent. */
async function scopeKeyOf(db: DbOrTx, orgId: string, input: BudgetSetInput): Promise<string> {
  const scopeId = input.scopeId ?? null;
  if (input.scope === "account") {
    if (scopeId !== null) throw invalidRequest("An account budget has no scopeId.", "scopeId");
    return "";
  }
  if (scopeId === null) throw invalidRequest(`A ${input.scope} budget needs a scopeId.`, "scopeId");
  if (input.scope === "agent") {
    const uuid = agentUuid(scopeId);
    const [agent] = uuid
      ? await db
          .select({ id: agents.id })
          .from(agents)
          .where(and(eq(agents.orgId, orgId), eq(agents.id, uuid)))
      : [];
    if (agent) return agentPublicId(agent.id);
  }
  // A key budget, or an agent budget naming the agent's API key (spec: "api key id for key/agent").
  const [key] = isUuid(scopeId)
    ? await db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.id, scopeId.toLowerCase())))
    : [];
  if (!key) throw notFound(input.scope === "key" ? "API key" : "agent or API key", "scopeId");
  return key.id;
}

function limitsOf(input: BudgetSetInput): StoredBudgetLimits {
  const l = input.limits;
  const limits: StoredBudgetLimits = {
    maxSendsPerDay: l.maxSendsPerDay ?? null,
    maxNewRecipientsPerHour: l.maxNewRecipientsPerHour ?? null,
    hardStopOnComplaint: l.hardStopOnComplaint ?? null,
    maxSpendPerDayCents: l.maxSpendPerDayCents ?? null,
  };
  if (limits.maxSpendPerDayCents !== null && input.scope !== "account")
    throw invalidRequest("maxSpendPerDayCents applies to the account budget only.", "limits.maxSpendPerDayCents");
  if (
    limits.maxSendsPerDay === null &&
    limits.maxNewRecipientsPerHour === null &&
    limits.maxSpendPerDayCents === null &&
    limits.hardStopOnComplaint !== true
  ) {
    throw invalidRequest(
      "Set at least one limit: maxSendsPerDay, maxNewRecipientsPerHour, maxSpendPerDayCents, or hardStopOnComplaint: true.",
      "limits",
    );
  }
  return limits;
}

/** `PUT /v1/budgets`: creates or replaces the budget of the scope and subject. */
export async function setBudget(db: Db, principal: Principal, input: BudgetSetInput) {
  const limits = limitsOf(input);
  const scopeKey = await scopeKeyOf(db, principal.orgId, input);
  const row = await db.transaction(async (tx) => {
    const now = new Date();
    const [existing] = await tx
      .select({ id: budgets.id })
      .from(budgets)
      .where(and(eq(budgets.orgId, principal.orgId), eq(budgets.scope, input.scope), eq(budgets.scopeKey, scopeKey)));
    const [stored] = await tx
      .insert(budgets)
      .values({
        orgId: principal.orgId,
        scope: input.scope,
        scopeKey,
        enabled: input.enabled,
        limits,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: [budgets.orgId, budgets.scope, budgets.scopeKey],
        set: { enabled: input.enabled, limits, updatedAt: now },
      })
      .returning();
    if (!stored) throw new Error("budget upsert returned nothing");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: existing ? "budget.updated" : "budget.created",
      resourceType: "budget",
      resourceId: stored.id,
      metadata: {
        scope: stored.scope,
        scopeId: stored.scope === "account" ? null : stored.scopeKey,
        enabled: stored.enabled,
        limits: { ...limits },
      },
    });
    return stored;
  });
  return { budget: await withUsage(db, row) };
}

export async function deleteBudget(db: Db, principal: Principal, budgetId: string) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .delete(budgets)
      .where(and(eq(budgets.orgId, principal.orgId), eq(budgets.id, budgetId)))
      .returning();
    if (!row) throw notFound("budget", "budgetId");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "budget.deleted",
      resourceType: "budget",
      resourceId: row.id,
      metadata: { scope: row.scope, scopeId: row.scope === "account" ? null : row.scopeKey },
    });
    return { deleted: true as const, id: row.id };
  });
}
