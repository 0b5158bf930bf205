import { and, asc, eq, gt, inArray, or, type SQL, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { budgets, sendUsage, spendHolds, suppressions } from "@/db/schema";
import { ApiError } from "@/lib/core/errors";
import { appendEvent } from "@/lib/events/ledger";
import { budgetLimitsSchema } from "./contracts";

/**
 * Budget enforcement (docs/ARCHITECTURE.md, "Budgets"). A send is checked twice:
 *   1. the policy stage (`checkSendBudgets`): the budgets the send falls under, read without locks —
 *      a send already over a limit is refused before anything is signed or stored (dry runs too);
 *   2. the transaction that accepts the send (`reserveSend`): the same budgets locked
 *      (`SELECT … FOR UPDATE`, in id order), usage summed again, and the send's usage row inserted.
 *      Concurrent sends under one budget queue on its row, each sees every committed reservation,
 *      so the limit holds exactly; a send that rolls back takes its reservation with it.
 * Fail-closed: a budget whose limits cannot be read refuses the send, and any error while checking
 * aborts the send (nothing is stored, nothing leaves).
 */

export type BudgetRow = typeof budgets.$inferSelect;
export type BudgetLimitName =
  | "maxSendsPerDay"
  | "maxNewRecipientsPerHour"
  | "hardStopOnComplaint"
  | "maxSpendPerDayCents"
  | "unevaluable";

export interface BudgetUsage {
  sendsLast24h: number;
  newRecipientsLastHour: number;
  accountHasComplaint: boolean;
  spentLast24hCents: number;
}

/** Who a send (or a paid hold) is made by: the organization, the API key, the agents. */
export interface BudgetSubject {
  orgId: string;
  apiKeyId: string | null;
  /** Agent passports (`agt_…`) the send is made under. */
  agentIds: readonly string[];
}

export interface BudgetTrip {
  budget: BudgetRow;
  limit: BudgetLimitName;
  limitValue: number | boolean | null;
  usage: BudgetUsage;
  /** Recipients of the refused send (or cents of the refused hold). */
  requested: number;
  inboxId: string | null;
}

/** A limit was reached. Thrown inside a transaction so it rolls back; `refuseOnTrip` records it. */
export class BudgetTripped extends Error {
  constructor(readonly trip: BudgetTrip) {
    super(`budget ${trip.budget.id} tripped on ${trip.limit}`);
    this.name = "BudgetTripped";
  }

  toApiError(): ApiError {
    const { budget, limit, limitValue, usage } = this.trip;
    const scope =
      budget.scope === "account" ? "the account's budget" : `the ${budget.scope} budget of ${budget.scopeKey}`;
    if (limit === "maxSpendPerDayCents") {
      return new ApiError(
        "spend_cap_reached",
        `The paid hold would exceed ${scope}: maxSpendPerDayCents is ${String(limitValue)}, ${usage.spentLast24hCents} held or spent in the last 24 hours.`,
      );
    }
    const why: Record<Exclude<BudgetLimitName, "maxSpendPerDayCents">, string> = {
      maxSendsPerDay: `maxSendsPerDay is ${String(limitValue)} and ${usage.sendsLast24h} recipients were sent to in the last 24 hours`,
      maxNewRecipientsPerHour: `maxNewRecipientsPerHour is ${String(limitValue)} and ${usage.newRecipientsLastHour} recipients were sent to in the last hour`,
      hardStopOnComplaint: "hardStopOnComplaint is set and the account has a recorded complaint",
      unevaluable: "its limits could not be evaluated, so sends under it are refused",
    };
    return new ApiError("budget_exceeded", `This send would exceed ${scope} (${budget.id}): ${why[limit]}.`);
  }
}

/** The enabled budgets a subject falls under: the account's, its key's, its agents'. */
function budgetsWhere(s: BudgetSubject): SQL {
  const subjects: SQL[] = [eq(budgets.scope, "account")];
  if (s.apiKeyId) subjects.push(and(eq(budgets.scope, "key"), eq(budgets.scopeKey, s.apiKeyId)) as SQL);
  // An agent budget names the agent's passport or (spec: "api key id for key/agent") the agent's key.
  const agentKeys = [...s.agentIds, ...(s.apiKeyId ? [s.apiKeyId] : [])];
  if (agentKeys.length > 0) subjects.push(and(eq(budgets.scope, "agent"), inArray(budgets.scopeKey, agentKeys)) as SQL);
  return and(eq(budgets.orgId, s.orgId), eq(budgets.enabled, true), or(...subjects)) as SQL;
}

async function budgetsOf(db: DbOrTx, s: BudgetSubject, lock: boolean): Promise<BudgetRow[]> {
  const q = db.select().from(budgets).where(budgetsWhere(s)).orderBy(asc(budgets.id));
  return lock ? q.for("update") : q;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The send usage rows a budget counts. */
function usageScope(b: BudgetRow): SQL {
  const org = eq(sendUsage.orgId, b.orgId);
  if (b.scope === "account") return org;
  if (b.scope === "key") return and(org, eq(sendUsage.apiKeyId, b.scopeKey)) as SQL;
  return and(org, or(eq(sendUsage.agentId, b.scopeKey), eq(sendUsage.apiKeyId, b.scopeKey))) as SQL;
}

/**
 * A budget's usage now: recipients in the rolling windows, the account's complaint, its spend.
 * `forSend`: only what a send's check reads (the complaint when the budget stops on one; no spend).
 */
export async function usageOf(
  db: DbOrTx,
  b: BudgetRow,
  now: Date = new Date(),
  opts: { forSend?: boolean } = {},
): Promise<BudgetUsage> {
  const dayAgo = new Date(now.getTime() - DAY);
  const hourAgo = new Date(now.getTime() - HOUR);
  const [sends] = await db
    .select({
      day: sql<string>`coalesce(sum(${sendUsage.recipients}), 0)`,
      hour: sql<string>`coalesce(sum(${sendUsage.recipients}) filter (where ${sendUsage.createdAt} > ${hourAgo.toISOString()}::timestamptz), 0)`,
    })
    .from(sendUsage)
    .where(and(usageScope(b), gt(sendUsage.createdAt, dayAgo)));
  const needsComplaint =
    !opts.forSend || (b.limits as { hardStopOnComplaint?: unknown } | null)?.hardStopOnComplaint === true;
  const [complaint] = needsComplaint
    ? await db
        .select({ one: sql<number>`1` })
        .from(suppressions)
        .where(and(eq(suppressions.orgId, b.orgId), eq(suppressions.reason, "complaint")))
        .limit(1)
    : [];
  let spent = 0;
  if (b.scope === "account" && !opts.forSend) {
    const [row] = await db
      .select({ cents: sql<string>`coalesce(sum(${spendHolds.amountCents}), 0)` })
      .from(spendHolds)
      .where(
        and(
          eq(spendHolds.orgId, b.orgId),
          inArray(spendHolds.status, ["held", "captured"]),
          gt(spendHolds.createdAt, dayAgo),
        ),
      );
    spent = Number(row?.cents ?? 0);
  }
  return {
    sendsLast24h: Number(sends?.day ?? 0),
    newRecipientsLastHour: Number(sends?.hour ?? 0),
    accountHasComplaint: complaint !== undefined,
    spentLast24hCents: spent,
  };
}

/**
 * The first send limit that `recipients` more would break under `limits` and `usage`, or null;
 * limits that do not parse break (`unevaluable`). With `recipients` 1 it says whether the budget is
 * tripped now (the console's budgets page).
 */
export function brokenLimit(
  limits: unknown,
  usage: BudgetUsage,
  recipients: number,
): { limit: BudgetLimitName; limitValue: number | boolean | null } | null {
  const parsed = budgetLimitsSchema.safeParse(limits);
  if (!parsed.success) return { limit: "unevaluable", limitValue: null };
  const l = parsed.data;
  if (l.hardStopOnComplaint === true && usage.accountHasComplaint)
    return { limit: "hardStopOnComplaint", limitValue: true };
  if (l.maxSendsPerDay !== null && usage.sendsLast24h + recipients > l.maxSendsPerDay)
    return { limit: "maxSendsPerDay", limitValue: l.maxSendsPerDay };
  if (l.maxNewRecipientsPerHour !== null && usage.newRecipientsLastHour + recipients > l.maxNewRecipientsPerHour)
    return { limit: "maxNewRecipientsPerHour", limitValue: l.maxNewRecipientsPerHour };
  return null;
}

/** The first limit a send of `recipients` would break, or null. Unreadable limits break. */
export function sendTrip(
  b: BudgetRow,
  usage: BudgetUsage,
  recipients: number,
  inboxId: string | null,
): BudgetTrip | null {
  const broken = brokenLimit(b.limits, usage, recipients);
  return broken ? { budget: b, ...broken, usage, requested: recipients, inboxId } : null;
}

export interface SendBudgetPlan {
  subject: BudgetSubject;
  recipients: number;
  inboxId: string | null;
  /** Whether any budget applied at the policy stage (the reservation locks and re-checks them). */
  budgeted: boolean;
}

export interface SendBudgetOptions {
  /** `fire`: a scheduled send going out, already reserved when it was accepted — only the complaint stop applies. */
  mode?: "accept" | "fire";
  now?: Date;
  /** False: the organization is known to have no budget (read by the caller), so none is read. */
  budgeted?: boolean;
}

/**
 * The policy stage's check: refuses (429 `budget_exceeded`, `budget.tripped` recorded) a send that
 * is over a budget now; returns the plan the accepting transaction reserves with.
 */
export async function checkSendBudgets(
  db: Db,
  subject: BudgetSubject,
  recipients: number,
  inboxId: string | null,
  opts: SendBudgetOptions & { record?: boolean } = {},
): Promise<SendBudgetPlan> {
  const now = opts.now ?? new Date();
  const found = opts.budgeted === false ? [] : await budgetsOf(db, subject, false);
  for (const b of found) {
    const usage = await usageOf(db, b, now, { forSend: true });
    const trip =
      opts.mode === "fire" ? complaintTrip(b, usage, recipients, inboxId) : sendTrip(b, usage, recipients, inboxId);
    if (trip) {
      const err = new BudgetTripped(trip);
      if (opts.record !== false) await recordTrip(db, trip);
      throw err.toApiError();
    }
  }
  return { subject, recipients, inboxId, budgeted: found.length > 0 };
}

function complaintTrip(
  b: BudgetRow,
  usage: BudgetUsage,
  recipients: number,
  inboxId: string | null,
): BudgetTrip | null {
  const parsed = budgetLimitsSchema.safeParse(b.limits);
  if (!parsed.success)
    return { budget: b, limit: "unevaluable", limitValue: null, usage, requested: recipients, inboxId };
  return parsed.data.hardStopOnComplaint === true && usage.accountHasComplaint
    ? { budget: b, limit: "hardStopOnComplaint", limitValue: true, usage, requested: recipients, inboxId }
    : null;
}

/**
 * Reserves the send's usage in the transaction that accepts it: locks the budgets it falls under,
 * re-checks them with every committed reservation counted, and inserts the usage row. Throws
 * `BudgetTripped` (so the transaction rolls back) when a limit would be exceeded. Call it last in
 * the transaction: the budget rows stay locked until the commit.
 */
export async function reserveSend(
  tx: DbOrTx,
  plan: SendBudgetPlan,
  messageId: string,
  now: Date = new Date(),
): Promise<void> {
  if (plan.budgeted) {
    for (const b of await budgetsOf(tx, plan.subject, true)) {
      const trip = sendTrip(b, await usageOf(tx, b, now, { forSend: true }), plan.recipients, plan.inboxId);
      if (trip) throw new BudgetTripped(trip);
    }
  }
  await tx.insert(sendUsage).values(sendUsageRow(plan, messageId, now));
}

/** A send's usage row (what `reserveSend` inserts; the store stage's one-statement path inserts it too). */
export function sendUsageRow(plan: SendBudgetPlan, messageId: string, now: Date) {
  return {
    orgId: plan.subject.orgId,
    messageId,
    apiKeyId: plan.subject.apiKeyId,
    agentId: plan.subject.agentIds[0] ?? null,
    recipients: plan.recipients,
    createdAt: now,
  };
}

/** Gives back a send's reservation (a scheduled send canceled before it went out). */
export async function releaseSend(tx: DbOrTx, orgId: string, messageId: string): Promise<void> {
  await tx.delete(sendUsage).where(and(eq(sendUsage.orgId, orgId), eq(sendUsage.messageId, messageId)));
}

/** The public form of a trip (the `budget.tripped` event's `data`). */
export function tripData(trip: BudgetTrip) {
  const { budget: b } = trip;
  return {
    budgetId: b.id,
    budget: { id: b.id, scope: b.scope, scopeId: b.scope === "account" ? null : b.scopeKey, limits: b.limits },
    limit: trip.limit,
    limitValue: trip.limitValue,
    usage: trip.usage,
    requested: trip.requested,
    inboxId: trip.inboxId,
  };
}

/**
 * `budget.tripped` in the ledger (and so to webhooks), in a transaction of its own: the refused
 * work rolled back. The event's usage is read in full again (the check read only what it needed).
 */
export async function recordTrip(db: Db, trip: BudgetTrip): Promise<void> {
  const full = { ...trip, usage: await usageOf(db, trip.budget) };
  await db.transaction((tx) =>
    appendEvent(tx, {
      orgId: trip.budget.orgId,
      type: "budget.tripped",
      partitionKey: `budget:${trip.budget.id}`,
      inboxId: trip.inboxId,
      data: tripData(full),
    }),
  );
}

/** Runs `work`; a `BudgetTripped` out of it is recorded (`budget.tripped`) and becomes its 429. */
export async function refuseOnTrip<T>(db: Db, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof BudgetTripped)) throw err;
    await recordTrip(db, err.trip);
    throw err.toApiError();
  }
}
