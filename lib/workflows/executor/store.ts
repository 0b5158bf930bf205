import { randomUUID } from "node:crypto";
import { CronExpressionParser } from "cron-parser";
import { and, eq, inArray, lt, lte, notInArray, sql } from "drizzle-orm";
import { type DbOrTx, getDb } from "@/db";
import { type WfEventPayload, wfEvents, wfFunctions, wfRuns } from "@/db/schema";
import { log } from "@/lib/log";
import { keyOf, matches } from "./expressions";
import { msUntil } from "./durations";
import { notifyWork } from "./signal";

/**
 * The executor's persistent side: registered functions, received events, runs. Everything here is
 * safe to call from any process sharing the database; workers (executor.ts) claim runs from it.
 */

/** One function as the SDK registers it (the fields the executor uses). */
export interface FnConfig {
  id: string;
  name?: string;
  triggers?: { event?: string; expression?: string; cron?: string }[];
  steps?: Record<string, { runtime?: { url?: string }; retries?: { attempts?: number } }>;
  concurrency?: number | { limit: number; key?: string } | { limit: number; key?: string }[];
  idempotency?: string;
  cancel?: { event: string; if?: string; timeout?: string }[];
}

export interface RegisterPayload {
  url: string;
  appName: string;
  functions: FnConfig[];
}

export type FunctionRow = typeof wfFunctions.$inferSelect;
export type RunRow = typeof wfRuns.$inferSelect;

/** Retries when a function does not set them (Inngest's default). */
export const DEFAULT_RETRIES = 4;
export const INVOKED_EVENT = "inngest/function.invoked";
export const FAILED_EVENT = "inngest/function.failed";
export const CRON_EVENT = "inngest/scheduled.timer";
const TERMINAL = ["completed", "failed", "cancelled"] as const;

function stepUrl(fn: FnConfig): string {
  const url = fn.steps?.step?.runtime?.url ?? Object.values(fn.steps ?? {})[0]?.runtime?.url;
  if (!url) throw new Error(`function ${fn.id} registered without a step URL`);
  return url;
}

function cronOf(fn: FnConfig): string | null {
  return fn.triggers?.find((t) => t.cron)?.cron ?? null;
}

export function nextCronTime(cron: string, after: Date = new Date()): Date {
  const tz = /^(?:TZ|CRON_TZ)=(\S+)\s+(.*)$/.exec(cron);
  const expression = CronExpressionParser.parse(tz ? (tz[2] ?? "") : cron, { currentDate: after, ...(tz ? { tz: tz[1] } : {}) });
  return expression.next().toDate();
}

/** Stores the app's functions (the SDK's sync). Functions of the app it no longer lists are removed. */
export async function registerFunctions(payload: RegisterPayload): Promise<{ modified: boolean }> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const existing = await tx.select().from(wfFunctions).where(eq(wfFunctions.appId, payload.appName));
    const byId = new Map(existing.map((f) => [f.id, f]));
    let modified = false;
    for (const fn of payload.functions) {
      const cron = cronOf(fn);
      const prior = byId.get(fn.id);
      const nextCronAt = cron ? (prior?.cron === cron && prior.nextCronAt ? prior.nextCronAt : nextCronTime(cron)) : null;
      const row = { appId: payload.appName, name: fn.name ?? fn.id, url: stepUrl(fn), config: fn as unknown as Record<string, unknown>, cron, nextCronAt, active: "active" as const };
      if (!prior || JSON.stringify(prior.config) !== JSON.stringify(row.config) || prior.url !== row.url || prior.active !== "active") modified = true;
      await tx
        .insert(wfFunctions)
        .values({ id: fn.id, ...row })
        .onConflictDoUpdate({ target: wfFunctions.id, set: { ...row, updatedAt: sql`now()` } });
    }
    const listed = payload.functions.map((f) => f.id);
    const removed = await tx
      .update(wfFunctions)
      .set({ active: "removed", nextCronAt: null, updatedAt: sql`now()` })
      .where(and(eq(wfFunctions.appId, payload.appName), eq(wfFunctions.active, "active"), listed.length ? notInArray(wfFunctions.id, listed) : sql`true`))
      .returning({ id: wfFunctions.id });
    return { modified: modified || removed.length > 0 };
  });
}

function configOf(fn: FunctionRow): FnConfig {
  return fn.config as unknown as FnConfig;
}

function concurrencyOf(cfg: FnConfig): { limit: number; key?: string } | null {
  const c = cfg.concurrency;
  if (c === undefined) return null;
  if (typeof c === "number") return { limit: c };
  const first = Array.isArray(c) ? (c.find((x) => x.key) ?? c[0]) : c;
  return first && first.limit > 0 ? first : null;
}

export function maxAttemptsOf(fn: FunctionRow): number {
  const cfg = configOf(fn);
  const retries = cfg.steps?.step?.retries?.attempts ?? DEFAULT_RETRIES;
  return Math.max(1, retries + 1);
}

/** Creates a run of `fn` for `event` (skipped when the function's idempotency key was seen). */
export async function createRun(
  tx: DbOrTx,
  fn: FunctionRow,
  event: WfEventPayload,
  opts: { parentRunId?: string } = {},
): Promise<RunRow | null> {
  const cfg = configOf(fn);
  const concurrency = concurrencyOf(cfg);
  const ctx = { event };
  const [run] = await tx
    .insert(wfRuns)
    .values({
      functionId: fn.id,
      event,
      maxAttempts: maxAttemptsOf(fn),
      concurrencyLimit: concurrency?.limit ?? null,
      concurrencyKey: concurrency?.key ? keyOf(concurrency.key, ctx) : null,
      idempotencyKey: cfg.idempotency ? keyOf(cfg.idempotency, ctx) : null,
      parentRunId: opts.parentRunId ?? null,
    })
    .onConflictDoNothing()
    .returning();
  return run ?? null;
}

function triggeredBy(fn: FunctionRow, event: WfEventPayload): boolean {
  return (configOf(fn).triggers ?? []).some((t) => {
    if (!t.event) return false;
    const nameMatches = t.event === event.name || (t.event.endsWith("*") && event.name.startsWith(t.event.slice(0, -1)));
    return nameMatches && matches(t.expression, { event });
  });
}

export interface IncomingEvent {
  id?: string;
  name: string;
  data?: Record<string, unknown>;
  user?: Record<string, unknown>;
  ts?: number;
  v?: string;
}

/**
 * Receives events: stores each once (a repeated event id is dropped, so it triggers once), starts
 * the runs it triggers, cancels runs its `cancelOn` matches, and resumes runs waiting for it — all
 * in one transaction per event. Returns the event ids.
 */
export async function ingestEvents(events: IncomingEvent[]): Promise<string[]> {
  const db = await getDb();
  const ids: string[] = [];
  for (const incoming of events) ids.push(...(await db.transaction((tx) => ingestEventsInTransaction(tx, [incoming]))));
  return ids;
}

function toPayload(incoming: IncomingEvent): WfEventPayload {
  return {
    id: incoming.id || randomUUID(),
    name: incoming.name,
    data: incoming.data ?? {},
    ts: incoming.ts ?? Date.now(),
    ...(incoming.user ? { user: incoming.user } : {}),
    ...(incoming.v ? { v: incoming.v } : {}),
  };
}

/**
 * Receives events inside the caller's transaction, so that a change and the workflow it starts
 * commit together (services publish this way in embedded mode). Workers are woken at once; a
 * rolled-back wake-up only costs them an empty claim.
 */
export async function ingestEventsInTransaction(tx: DbOrTx, events: IncomingEvent[]): Promise<string[]> {
  const ids: string[] = [];
  let queued = false;
  for (const incoming of events) {
    const payload = toPayload(incoming);
    ids.push(payload.id);
    queued = (await handleEvent(tx, payload)) || queued;
  }
  if (queued) setTimeout(notifyWork, 0);
  return ids;
}

async function handleEvent(tx: DbOrTx, event: WfEventPayload): Promise<boolean> {
  const stored = await tx.insert(wfEvents).values({ eventId: event.id, name: event.name, payload: event }).onConflictDoNothing().returning({ id: wfEvents.id });
  if (stored.length === 0) return false; // duplicate event id
  let queued = false;
  const functions = await tx.select().from(wfFunctions).where(eq(wfFunctions.active, "active"));

  // Runs this event starts. Invocations target one function directly (see invokeFunction).
  if (event.name !== INVOKED_EVENT) {
    for (const fn of functions) {
      if (triggeredBy(fn, event) && (await createRun(tx, fn, event))) queued = true;
    }
  }

  // cancelOn: runs of functions that cancel on this event, whose expression matches.
  for (const fn of functions) {
    for (const cancel of configOf(fn).cancel ?? []) {
      if (cancel.event !== event.name) continue;
      const candidates = await tx
        .select()
        .from(wfRuns)
        .where(and(eq(wfRuns.functionId, fn.id), notInArray(wfRuns.status, [...TERMINAL])))
        .for("update");
      for (const run of candidates) {
        const timeout = cancel.timeout ? msUntil(cancel.timeout, run.createdAt.getTime()) : null;
        if (timeout !== null && run.createdAt.getTime() + timeout < Date.now()) continue;
        if (!matches(cancel.if, { event: run.event, async: event })) continue;
        await tx
          .update(wfRuns)
          .set({ status: "cancelled", endedAt: sql`now()`, wait: null, leaseUntil: null, error: { name: "Cancelled", message: `Cancelled by event ${event.name} (${event.id})` } })
          .where(eq(wfRuns.id, run.id));
      }
    }
  }

  // waitForEvent: runs waiting for this event name whose expression matches resume with it.
  const waiting = await tx
    .select()
    .from(wfRuns)
    .where(and(eq(wfRuns.status, "waiting"), sql`${wfRuns.wait}->>'kind' = 'event'`, sql`${wfRuns.wait}->>'event' = ${event.name}`))
    .for("update");
  for (const run of waiting) {
    if (!run.wait || !matches(run.wait.expression, { event: run.event, async: event })) continue;
    await resumeWithStep(tx, run, run.wait.stepId, { data: event });
    queued = true;
  }
  return queued;
}

/** Memoizes a waiting run's step outcome and makes the run due now. */
export async function resumeWithStep(tx: DbOrTx, run: RunRow, stepId: string, outcome: unknown): Promise<void> {
  await tx
    .update(wfRuns)
    .set({
      steps: { ...run.steps, [stepId]: outcome },
      stack: [...run.stack, stepId],
      wait: null,
      status: "queued",
      dueAt: sql`now()`,
    })
    .where(eq(wfRuns.id, run.id));
}

/** Starts a child run of `functionId` for `step.invoke`; null when no such function is registered. */
export async function invokeFunction(tx: DbOrTx, functionId: string, payload: { data?: Record<string, unknown>; v?: string }, parentRunId: string): Promise<RunRow | null> {
  const [fn] = await tx.select().from(wfFunctions).where(and(eq(wfFunctions.id, functionId), eq(wfFunctions.active, "active")));
  if (!fn) return null;
  const event: WfEventPayload = { id: randomUUID(), name: INVOKED_EVENT, data: payload.data ?? {}, ts: Date.now(), ...(payload.v ? { v: payload.v } : {}) };
  await tx.insert(wfEvents).values({ eventId: event.id, name: event.name, payload: event });
  return createRun(tx, fn, event, { parentRunId });
}

/** Creates the runs of cron functions that are due, once each across processes. */
export async function fireDueCrons(now: Date = new Date()): Promise<number> {
  const db = await getDb();
  const fired = await db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(wfFunctions)
      .where(and(eq(wfFunctions.active, "active"), lte(wfFunctions.nextCronAt, now)))
      .for("update", { skipLocked: true });
    let n = 0;
    for (const fn of due) {
      if (!fn.cron || !fn.nextCronAt) continue;
      const event: WfEventPayload = { id: `cron:${fn.id}:${fn.nextCronAt.toISOString()}`, name: CRON_EVENT, data: { cron: fn.cron }, ts: now.getTime() };
      const stored = await tx.insert(wfEvents).values({ eventId: event.id, name: event.name, payload: event }).onConflictDoNothing().returning({ id: wfEvents.id });
      if (stored.length > 0 && (await createRun(tx, fn, event))) n++;
      await tx.update(wfFunctions).set({ nextCronAt: nextCronTime(fn.cron, now) }).where(eq(wfFunctions.id, fn.id));
    }
    return n;
  });
  if (fired > 0) {
    log.debug("cron runs created", { fired });
    notifyWork();
  }
  return fired;
}

/** Claim serialization: keeps per-key concurrency counts exact across workers and processes. */
const CLAIM_LOCK = 7_246_120;

/**
 * Claims one due run for `leaseMs`: queued runs, sleeps and waits whose time has come, and runs
 * whose worker's lease expired (a crashed process). Runs at their function's concurrency limit for
 * their key wait. `FOR UPDATE SKIP LOCKED` lets workers in several processes share the queue.
 */
export async function claimRun(leaseMs: number, functionIds: string[]): Promise<RunRow | null> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`);
    // Due runs first (served by a partial index), then runs whose worker's lease expired.
    const due = await tx
      .select({ id: wfRuns.id })
      .from(wfRuns)
      .where(
        sql`${wfRuns.status} in ('queued', 'sleeping', 'waiting') and ${wfRuns.dueAt} <= now()
          and ${inArray(wfRuns.functionId, functionIds)}
          and (${wfRuns.concurrencyLimit} is null or (
            select count(*) from wf_runs x
            where x.function_id = ${wfRuns.functionId}
              and x.concurrency_key is not distinct from ${wfRuns.concurrencyKey}
              and x.status = 'running' and x.lease_until >= now()
          ) < ${wfRuns.concurrencyLimit})`,
      )
      .orderBy(wfRuns.dueAt)
      .limit(1)
      .for("update", { skipLocked: true });
    const candidates = due.length
      ? due
      : await tx
          .select({ id: wfRuns.id })
          .from(wfRuns)
          .where(and(eq(wfRuns.status, "running"), lt(wfRuns.leaseUntil, sql`now()`), inArray(wfRuns.functionId, functionIds)))
          .limit(1)
          .for("update", { skipLocked: true });
    const id = candidates[0]?.id;
    if (!id) return null;
    const [run] = await tx
      .update(wfRuns)
      .set({
        status: "running",
        leaseUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval`,
        startedAt: sql`coalesce(${wfRuns.startedAt}, now())`,
      })
      .where(eq(wfRuns.id, id))
      .returning();
    return run ?? null;
  });
}

/** The soonest time a run becomes due (for idle workers' timers); null when nothing is scheduled. */
export async function nextDueAt(functionIds: string[]): Promise<Date | null> {
  if (functionIds.length === 0) return null;
  const db = await getDb();
  const [row] = await db
    .select({ at: sql<Date | string | null>`min(${wfRuns.dueAt})` })
    .from(wfRuns)
    .where(and(inArray(wfRuns.status, ["queued", "sleeping", "waiting"]), inArray(wfRuns.functionId, functionIds)));
  return row?.at ? new Date(row.at) : null;
}

/** Every function (active or removed) of the given apps. */
export async function functionsOfApps(appIds: string[]): Promise<FunctionRow[]> {
  if (appIds.length === 0) return [];
  const db = await getDb();
  return db.select().from(wfFunctions).where(inArray(wfFunctions.appId, appIds));
}

/**
 * Runs a dead process was executing go back to the queue. Only for the embedded database, whose
 * single owner process is this one: no other worker can hold a live lease. (On PostgreSQL,
 * several processes share the queue and an orphan is recovered when its lease expires.)
 */
export async function recoverOrphanedRuns(): Promise<number> {
  const db = await getDb();
  const rows = await db
    .update(wfRuns)
    .set({ status: "queued", leaseUntil: null, dueAt: sql`now()` })
    .where(eq(wfRuns.status, "running"))
    .returning({ id: wfRuns.id });
  return rows.length;
}
