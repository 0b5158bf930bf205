import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { type Db, type DbOrTx, rowsOf } from "@/db";
import { agents } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit, SYSTEM_ACTOR } from "@/lib/core/audit";
import { ApiError, notPermitted } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { agentPublicId, type AgentRow, findAgent } from "./agent";

/**
 * Agent reputation (spec: per-agent reputation): rolling 24-hour bounce and complaint rates from
 * the delivery outcomes of the agent's sends, recipient-denominated — hard bounces (anything but
 * `Transient`) and complaints per recipient sent to — and a state:
 *
 *   healthy      under the throttle thresholds (or fewer than REPUTATION_MIN_SENDS recipients)
 *   throttled    a rate at or over its throttle threshold: at most REPUTATION_THROTTLED_SENDS_PER_HOUR
 *                sends per rolling hour, more are 429 `rate_limited`
 *   quarantined  a rate at or over its quarantine threshold: every send refused (403), `shouldSend`
 *                false; it stays quarantined when the rates fall — only an operator clears it
 *   review       cleared by an operator: sends go, only outcomes after the clear count, and after a
 *                full window it is judged as usual again (quarantined again at once if it crosses)
 *
 * A clear with `overrideLocked` sets `healthy` and locks it: the rates are still computed and shown,
 * the state is left alone until a clear without it. The state is evaluated when a send is made as
 * the agent (the policy stage) and when reputation is read; a change is written under the agent's
 * row lock with an audit row (`agent.reputation_changed`, actor `system:reputation`).
 */

export const WINDOW_HOURS = 24;
const HOUR = 3_600_000;

export function reputationThresholds() {
  return {
    throttleBounceRate: env.REPUTATION_THROTTLE_BOUNCE_RATE,
    quarantineBounceRate: env.REPUTATION_QUARANTINE_BOUNCE_RATE,
    throttleComplaintRate: env.REPUTATION_THROTTLE_COMPLAINT_RATE,
    quarantineComplaintRate: env.REPUTATION_QUARANTINE_COMPLAINT_RATE,
    minSends: env.REPUTATION_MIN_SENDS,
    throttledSendsPerHour: env.REPUTATION_THROTTLED_SENDS_PER_HOUR,
  };
}
type Thresholds = ReturnType<typeof reputationThresholds>;

interface Counts {
  sends: number;
  bounces: number;
  complaints: number;
}

/** Where an agent's window starts: 24 hours back, or its last clear when that is later. */
const windowStart = (a: AgentRow, now: Date) =>
  new Date(Math.max(now.getTime() - WINDOW_HOURS * HOUR, a.reputationClearedAt?.getTime() ?? 0));

/** Recipients sent to, hard bounces and complaints of each agent in its window (two grouped queries). */
async function countsOf(db: DbOrTx, rows: AgentRow[], now: Date): Promise<Map<string, Counts>> {
  const out = new Map<string, Counts>(rows.map((r) => [r.id, { sends: 0, bounces: 0, complaints: 0 }]));
  if (rows.length === 0) return out;
  const ids = rows.map((r) => r.id);
  const since = new Date(now.getTime() - WINDOW_HOURS * HOUR).toISOString();
  const from = sql`greatest(${since}::timestamptz, coalesce(a.reputation_cleared_at, ${since}::timestamptz))`;
  const idList = sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  const sends = await db.execute(sql`
    select m.agent_id, sum(cardinality(m."to") + cardinality(m.cc) + cardinality(m.bcc)) as n
    from messages m join agents a on a.id = m.agent_id
    where m.agent_id in (${idList}) and m.direction = 'outbound' and m.status in ('sent', 'queued') and m.created_at >= ${from}
    group by m.agent_id`);
  const outcomes = await db.execute(sql`
    select m.agent_id,
      count(*) filter (where e.type = 'Bounce' and coalesce(e.details->>'bounceType', 'Permanent') <> 'Transient') as bounces,
      count(*) filter (where e.type = 'Complaint') as complaints
    from outbound_events e join messages m on m.id = e.message_id join agents a on a.id = m.agent_id
    where m.agent_id in (${idList}) and e.occurred_at >= ${from}
    group by m.agent_id`);
  for (const r of rowsOf<{ agent_id: string; n: string | number }>(sends)) {
    const c = out.get(r.agent_id);
    if (c) c.sends = Number(r.n);
  }
  for (const r of rowsOf<{ agent_id: string; bounces: string | number; complaints: string | number }>(outcomes)) {
    const c = out.get(r.agent_id);
    if (c) {
      c.bounces = Number(r.bounces);
      c.complaints = Number(r.complaints);
    }
  }
  return out;
}

const rate = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 1e6) / 1e6);

/** The state the counts call for, and why (null reason: nothing over a threshold). */
function judge(
  a: AgentRow,
  c: Counts,
  t: Thresholds,
  now: Date,
): { state: AgentRow["reputationState"]; reason: string | null } {
  if (a.reputationLocked) return { state: a.reputationState, reason: a.reputationReason };
  const bounceRate = rate(c.bounces, c.sends);
  const complaintRate = rate(c.complaints, c.sends);
  const over = (kind: "quarantine" | "throttle") => {
    if (c.sends < t.minSends) return null;
    const b = kind === "quarantine" ? t.quarantineBounceRate : t.throttleBounceRate;
    const k = kind === "quarantine" ? t.quarantineComplaintRate : t.throttleComplaintRate;
    if (complaintRate >= k)
      return `complaint rate ${complaintRate} ≥ ${kind} threshold ${k} (${c.complaints} of ${c.sends} recipients)`;
    if (bounceRate >= b)
      return `bounce rate ${bounceRate} ≥ ${kind} threshold ${b} (${c.bounces} of ${c.sends} recipients)`;
    return null;
  };
  const quarantine = over("quarantine");
  if (quarantine) return { state: "quarantined", reason: quarantine };
  // Quarantine holds until an operator clears it.
  if (a.reputationState === "quarantined") return { state: "quarantined", reason: a.reputationReason };
  if (
    a.reputationState === "review" &&
    a.reputationClearedAt &&
    now.getTime() - a.reputationClearedAt.getTime() < WINDOW_HOURS * HOUR
  ) {
    return { state: "review", reason: a.reputationReason };
  }
  const throttle = over("throttle");
  if (throttle) return { state: "throttled", reason: throttle };
  return { state: "healthy", reason: a.reputationState === "healthy" ? a.reputationReason : null };
}

const VERDICT = { healthy: "allow", throttled: "throttle", quarantined: "block", review: "review" } as const;

export function toReputation(a: AgentRow, c: Counts, t: Thresholds, now: Date) {
  return {
    agentId: agentPublicId(a.id),
    state: a.reputationState,
    verdict: VERDICT[a.reputationState],
    shouldSend: a.reputationState !== "quarantined" && a.status === "active",
    window: {
      hours: WINDOW_HOURS,
      from: windowStart(a, now).toISOString(),
      to: now.toISOString(),
      sends: c.sends,
      bounces: c.bounces,
      complaints: c.complaints,
    },
    rates: { bounceRate: rate(c.bounces, c.sends), complaintRate: rate(c.complaints, c.sends) },
    thresholds: t,
    lastReason: a.reputationReason,
    lastTrippedAt: a.reputationTrippedAt?.toISOString() ?? null,
    lastEvaluatedAt: a.reputationEvaluatedAt?.toISOString() ?? null,
    overrideLocked: a.reputationLocked,
  };
}
export type AgentReputation = ReturnType<typeof toReputation>;

/**
 * Evaluates agents now and writes what changed (state, reason, trip time) under each changed
 * agent's row lock — re-judged there, so concurrent evaluations agree — with its audit row; every
 * evaluated agent's `lastEvaluatedAt` moves. Returns the agents as evaluated, with their counts.
 */
export async function evaluateAgents(
  db: Db | DbOrTx,
  rows: AgentRow[],
  now = new Date(),
): Promise<{ row: AgentRow; counts: Counts }[]> {
  const t = reputationThresholds();
  const counts = await countsOf(db, rows, now);
  const out: { row: AgentRow; counts: Counts }[] = [];
  for (const a of rows) {
    const c = counts.get(a.id) ?? { sends: 0, bounces: 0, complaints: 0 };
    const verdict = judge(a, c, t, now);
    if (verdict.state === a.reputationState && verdict.reason === a.reputationReason) {
      out.push({ row: { ...a, reputationEvaluatedAt: now }, counts: c });
      continue;
    }
    const row = await db.transaction(async (tx) => {
      const [current] = await tx.select().from(agents).where(eq(agents.id, a.id)).for("update");
      if (!current) return a;
      const next = judge(current, c, t, now);
      if (next.state === current.reputationState && next.reason === current.reputationReason) return current;
      const tripped = next.state === "throttled" || next.state === "quarantined";
      const [updated] = await tx
        .update(agents)
        .set({
          reputationState: next.state,
          reputationReason: next.reason,
          reputationEvaluatedAt: now,
          ...(tripped && next.state !== current.reputationState ? { reputationTrippedAt: now } : {}),
        })
        .where(eq(agents.id, a.id))
        .returning();
      if (next.state !== current.reputationState) {
        await recordAudit(tx, SYSTEM_ACTOR("reputation"), {
          orgId: a.orgId,
          action: "agent.reputation_changed",
          resourceType: "agent",
          resourceId: a.id,
          metadata: {
            agentId: agentPublicId(a.id),
            from: current.reputationState,
            to: next.state,
            reason: next.reason,
            ...c,
          },
        });
      }
      return updated ?? current;
    });
    out.push({ row, counts: c });
  }
  // One statement for the evaluation time of those that did not change.
  const unchanged = out.filter((o) => o.row.reputationEvaluatedAt === now).map((o) => o.row.id);
  if (unchanged.length > 0)
    await db.update(agents).set({ reputationEvaluatedAt: now }).where(inArray(agents.id, unchanged));
  return out;
}

/**
 * The policy stage's reputation check for a send made as `agent`: quarantined → 403 (the send is
 * refused, `shouldSend` false); throttled → at most REPUTATION_THROTTLED_SENDS_PER_HOUR sends per
 * rolling hour (429 `rate_limited` with Retry-After beyond). `sends`: how many messages the
 * request makes (a broadcast makes one per member: all of them must fit in the hour's allowance).
 */
export async function refuseByReputation(db: Db, agent: AgentRow, now = new Date(), sends = 1): Promise<void> {
  const [evaluated] = await evaluateAgents(db, [agent], now);
  const a = evaluated?.row ?? agent;
  if (a.reputationState === "quarantined") {
    throw notPermitted(
      `The agent ${agentPublicId(a.id)} is quarantined (${a.reputationReason ?? "reputation"}); its sends are refused until an operator clears it.`,
      "inboxId",
    );
  }
  if (a.reputationState !== "throttled") return;
  const limit = env.REPUTATION_THROTTLED_SENDS_PER_HOUR;
  const since = new Date(now.getTime() - HOUR);
  const [row] = rowsOf<{ n: string | number; oldest: string | Date | null }>(
    await db.execute(
      sql`select count(*) as n, min(created_at) as oldest from messages where agent_id = ${a.id} and direction = 'outbound' and created_at >= ${since.toISOString()}::timestamptz`,
    ),
  );
  if (Number(row?.n ?? 0) + sends <= limit) return;
  const oldest = row?.oldest ? new Date(row.oldest) : now;
  const retryAfter = Math.max(1, Math.ceil((oldest.getTime() + HOUR - now.getTime()) / 1000));
  throw new ApiError(
    "rate_limited",
    `The agent ${agentPublicId(a.id)} is throttled (${a.reputationReason ?? "reputation"}): at most ${limit} sends per hour${sends > 1 ? `, and this broadcast makes ${sends}` : ""}.`,
    "inboxId",
  ).withHeaders({
    "Retry-After": String(retryAfter),
  });
}

export async function getReputation(db: Db, principal: Principal, ref: string) {
  const agent = await findAgent(db, principal.orgId, ref);
  const [e] = await evaluateAgents(db, [agent]);
  return toReputation(
    e?.row ?? agent,
    e?.counts ?? { sends: 0, bounces: 0, complaints: 0 },
    reputationThresholds(),
    new Date(),
  );
}

export async function listReputation(db: Db, principal: Principal) {
  const rows = await db
    .select()
    .from(agents)
    .where(eq(agents.orgId, principal.orgId))
    .orderBy(asc(agents.createdAt), asc(agents.id));
  const now = new Date();
  const t = reputationThresholds();
  const evaluated = await evaluateAgents(db, rows, now);
  return {
    window: { hours: WINDOW_HOURS },
    thresholds: t,
    agents: evaluated.map((e) => toReputation(e.row, e.counts, t, now)),
  };
}

/**
 * An operator's clear: outcomes before now stop counting; the state becomes `review` (sends go,
 * judged again after a full window), or with `overrideLocked` `healthy` and locked there.
 */
export async function clearReputation(
  db: Db,
  principal: Principal,
  ref: string,
  input: { overrideLocked: boolean; reason?: string },
) {
  const now = new Date();
  const row = await db.transaction(async (tx) => {
    const current = await findAgent(tx, principal.orgId, ref, { lock: true });
    const state = input.overrideLocked || current.reputationState === "healthy" ? "healthy" : "review";
    const reason = input.reason ?? (input.overrideLocked ? "cleared by an operator, locked" : "cleared by an operator");
    const [updated] = await tx
      .update(agents)
      .set({
        reputationState: state,
        reputationLocked: input.overrideLocked,
        reputationClearedAt: now,
        reputationReason: reason,
        reputationEvaluatedAt: now,
      })
      .where(and(eq(agents.id, current.id)))
      .returning();
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "agent.reputation_cleared",
      resourceType: "agent",
      resourceId: current.id,
      metadata: {
        agentId: agentPublicId(current.id),
        from: current.reputationState,
        to: state,
        overrideLocked: input.overrideLocked,
        reason,
      },
    });
    return updated ?? current;
  });
  const counts = (await countsOf(db, [row], now)).get(row.id) ?? { sends: 0, bounces: 0, complaints: 0 };
  const reputation = toReputation(row, counts, reputationThresholds(), now);
  return {
    agentId: reputation.agentId,
    state: reputation.state,
    shouldSend: reputation.shouldSend,
    overrideLocked: reputation.overrideLocked,
    reputation,
  };
}
