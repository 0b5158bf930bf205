import { randomUUID } from "node:crypto";
import { CronExpressionParser } from "cron-parser";
import { and, desc, eq, inArray, isNull, lt, lte, notInArray, or, sql } from "drizzle-orm";
import { type DbOrTx, getDb } from "@/db";
import { type WfEventPayload, wfEvents, wfFunctions, wfRuns, wfThrottles } from "@/db/schema";
import { log } from "@/lib/log";
import { admit, type Gcra, gcra } from "@/lib/ratelimit/gcra";
import { evaluate, keyOf, matches } from "./expressions";
import { msUntil } from "./durations";
import { notifyWork, notifyWorkOnCommit } from "./signal";

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
  throttle?: { limit: number; period: string; key?: string; burst?: number };
  rateLimit?: { limit: number; period: string; key?: string };
  debounce?: { period: string; key?: string; timeout?: string };
  batchEvents?: { maxSize: number; timeout: string; key?: string; if?: string };
  priority?: { run?: string };
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
/** Rows per multi-row INSERT (well under PostgreSQL's 65,535 bind parameters). */
const INSERT_CHUNK = 1000;
/** Advisory lock namespace of flow control at arrival (rate limits, debounce and batch runs). */
const FLOW_LOCK = 7_246_121;

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
  const expression = CronExpressionParser.parse(tz ? (tz[2] ?? "") : cron, {
    currentDate: after,
    ...(tz ? { tz: tz[1] } : {}),
  });
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
      const nextCronAt = cron
        ? prior?.cron === cron && prior.nextCronAt
          ? prior.nextCronAt
          : nextCronTime(cron)
        : null;
      const row = {
        appId: payload.appName,
        name: fn.name ?? fn.id,
        url: stepUrl(fn),
        config: fn as unknown as Record<string, unknown>,
        cron,
        nextCronAt,
        active: "active" as const,
      };
      if (
        !prior ||
        JSON.stringify(prior.config) !== JSON.stringify(row.config) ||
        prior.url !== row.url ||
        prior.active !== "active"
      )
        modified = true;
      await tx
        .insert(wfFunctions)
        .values({ id: fn.id, ...row })
        .onConflictDoUpdate({ target: wfFunctions.id, set: { ...row, updatedAt: sql`now()` } });
    }
    const listed = payload.functions.map((f) => f.id);
    const removed = await tx
      .update(wfFunctions)
      .set({ active: "removed", nextCronAt: null, updatedAt: sql`now()` })
      .where(
        and(
          eq(wfFunctions.appId, payload.appName),
          eq(wfFunctions.active, "active"),
          listed.length ? notInArray(wfFunctions.id, listed) : sql`true`,
        ),
      )
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

/** A flow-control key: the evaluated `key` expression, "" for the whole function (null: not configured). */
function flowKey(setting: { key?: string } | undefined, ctx: Record<string, unknown>): string | null {
  if (!setting) return null;
  return setting.key ? (keyOf(setting.key, ctx) ?? "") : "";
}

/** `priority.run` evaluated for the event: whole seconds within Inngest's ±600. */
function priorityOf(cfg: FnConfig, ctx: Record<string, unknown>): number {
  if (!cfg.priority?.run) return 0;
  const value = Number(evaluate(cfg.priority.run, ctx));
  return Number.isFinite(value) ? Math.max(-600, Math.min(600, Math.trunc(value))) : 0;
}

/** The row of a new run of `fn` for `event`. */
function runValues(
  fn: FunctionRow,
  event: WfEventPayload,
  opts: { parentRunId?: string } = {},
): typeof wfRuns.$inferInsert {
  const cfg = configOf(fn);
  const concurrency = concurrencyOf(cfg);
  const ctx = { event };
  return {
    functionId: fn.id,
    event,
    maxAttempts: maxAttemptsOf(fn),
    concurrencyLimit: concurrency?.limit ?? null,
    concurrencyKey: concurrency?.key ? keyOf(concurrency.key, ctx) : null,
    idempotencyKey: cfg.idempotency ? keyOf(cfg.idempotency, ctx) : null,
    throttleKey: flowKey(cfg.throttle, ctx),
    rateKey: flowKey(cfg.rateLimit, ctx),
    priority: priorityOf(cfg, ctx),
    parentRunId: opts.parentRunId ?? null,
  };
}

/** Whether starting `fn` for events goes through `startGathered` (rate limit, debounce, batches). */
function gathers(fn: FunctionRow): boolean {
  const cfg = configOf(fn);
  return Boolean(cfg.rateLimit || cfg.debounce || cfg.batchEvents);
}

const ms = (duration: string | undefined, fallback: number) => (duration ? (msUntil(duration) ?? fallback) : fallback);
const interval = (millis: number) => sql`${`${Math.max(0, Math.round(millis))} milliseconds`}::interval`;

/**
 * Starts `fn` for `event` under the flow control that decides at arrival, as Inngest defines it:
 * `rateLimit` drops the event when `limit` runs of its key were created within `period`;
 * `debounce` keeps one pending run per key whose event is the latest, due `period` after it (and
 * no later than `timeout` after the first); `batchEvents` appends to the open run of its key, due
 * when it holds `maxSize` events or `timeout` after the first. Counts and open runs live in the
 * database under a transaction lock per function and key, so they hold across processes.
 * Returns whether a run is now due or scheduled.
 */
async function startGathered(tx: DbOrTx, fn: FunctionRow, event: WfEventPayload): Promise<boolean> {
  const cfg = configOf(fn);
  const values = runValues(fn, event);
  const ctx = { event };
  const lock = async (kind: string, key: string) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${FLOW_LOCK}, hashtext(${`${kind}:${fn.id}:${key}`}))`);
  };
  if (cfg.rateLimit && values.rateKey !== null && values.rateKey !== undefined) {
    await lock("rate", values.rateKey);
    const [row] = await tx
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(wfRuns)
      .where(
        and(
          eq(wfRuns.functionId, fn.id),
          eq(wfRuns.rateKey, values.rateKey),
          sql`${wfRuns.createdAt} > now() - ${interval(ms(cfg.rateLimit.period, 0))}`,
        ),
      );
    if ((row?.n ?? 0) >= cfg.rateLimit.limit) return false; // over the limit: the event starts nothing
  }
  const gather = cfg.batchEvents
    ? { kind: "batch", setting: cfg.batchEvents }
    : cfg.debounce
      ? { kind: "debounce", setting: cfg.debounce }
      : null;
  if (!gather) {
    const created = await tx.insert(wfRuns).values(values).onConflictDoNothing().returning({ id: wfRuns.id });
    return created.length > 0;
  }
  if (cfg.batchEvents?.if && !matches(cfg.batchEvents.if, ctx)) {
    // Events the batch condition refuses run alone, at once.
    const created = await tx.insert(wfRuns).values(values).onConflictDoNothing().returning({ id: wfRuns.id });
    return created.length > 0;
  }
  const key = flowKey(gather.setting, ctx) ?? "";
  await lock(gather.kind, key);
  // The open run of the key: not started, and for a batch not full yet (a full batch waits for its
  // claim, and the next event opens the next batch).
  const room = cfg.batchEvents
    ? sql`jsonb_array_length(coalesce(${wfRuns.events}, '[]'::jsonb)) < ${Math.max(1, cfg.batchEvents.maxSize)}`
    : sql`true`;
  const [open] = await tx
    .select()
    .from(wfRuns)
    .where(
      and(
        eq(wfRuns.functionId, fn.id),
        eq(wfRuns.gatherKey, key),
        eq(wfRuns.status, "queued"),
        isNull(wfRuns.startedAt),
        room,
      ),
    )
    .orderBy(desc(wfRuns.createdAt))
    .limit(1)
    .for("update");
  if (cfg.batchEvents) {
    const max = Math.max(1, cfg.batchEvents.maxSize);
    if (open && (open.events?.length ?? 1) < max) {
      const events = [...(open.events ?? [open.event]), event];
      await tx
        .update(wfRuns)
        .set({ events, ...(events.length >= max ? { dueAt: sql`now()` } : {}) })
        .where(eq(wfRuns.id, open.id));
      return true;
    }
    const due = max <= 1 ? 0 : ms(cfg.batchEvents.timeout, 0);
    await tx
      .insert(wfRuns)
      .values({ ...values, events: [event], gatherKey: key, dueAt: sql`now() + ${interval(due)}` });
    return true;
  }
  const debounce = cfg.debounce as NonNullable<FnConfig["debounce"]>;
  const period = ms(debounce.period, 0);
  if (open) {
    // The latest event wins; the run moves to `period` after it, capped by `timeout` after the first.
    const cap = debounce.timeout
      ? sql`least(now() + ${interval(period)}, ${wfRuns.createdAt} + ${interval(ms(debounce.timeout, period))})`
      : sql`now() + ${interval(period)}`;
    await tx.update(wfRuns).set({ event, priority: values.priority, dueAt: cap }).where(eq(wfRuns.id, open.id));
    return true;
  }
  await tx.insert(wfRuns).values({ ...values, gatherKey: key, dueAt: sql`now() + ${interval(period)}` });
  return true;
}

/** Creates a run of `fn` for `event` (skipped when the function's idempotency key was seen). */
export async function createRun(
  tx: DbOrTx,
  fn: FunctionRow,
  event: WfEventPayload,
  opts: { parentRunId?: string } = {},
): Promise<RunRow | null> {
  const [run] = await tx
    .insert(wfRuns)
    .values(runValues(fn, event, opts))
    .onConflictDoNothing()
    .returning();
  return run ?? null;
}

function triggeredBy(fn: FunctionRow, event: WfEventPayload): boolean {
  return (configOf(fn).triggers ?? []).some((t) => {
    if (!t.event) return false;
    const nameMatches =
      t.event === event.name || (t.event.endsWith("*") && event.name.startsWith(t.event.slice(0, -1)));
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
 * the runs it triggers, cancels runs its `cancelOn` matches, and resumes runs waiting for it — the
 * whole batch in one transaction, in the events' order. Returns the event ids.
 */
export async function ingestEvents(events: IncomingEvent[]): Promise<string[]> {
  const db = await getDb();
  return db.transaction((tx) => ingestEventsInTransaction(tx, events));
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
 * commit together (services publish this way in embedded mode). Workers in every process are
 * woken when it commits (`NOTIFY`, see signal.ts); a rollback wakes nobody.
 */
export async function ingestEventsInTransaction(tx: DbOrTx, events: IncomingEvent[]): Promise<string[]> {
  const payloads = events.map(toPayload);
  const ids = payloads.map((e) => e.id);
  if (payloads.length === 0) return ids;
  // Each event id is stored once: a repeat (stored before, or earlier in this batch) is dropped.
  const unique = [...new Map(payloads.toReversed().map((e) => [e.id, e])).values()].toReversed();
  const fresh = new Set<string>();
  for (let i = 0; i < unique.length; i += INSERT_CHUNK) {
    const stored = await tx
      .insert(wfEvents)
      .values(unique.slice(i, i + INSERT_CHUNK).map((e) => ({ eventId: e.id, name: e.name, payload: e })))
      .onConflictDoNothing()
      .returning({ eventId: wfEvents.eventId });
    for (const r of stored) fresh.add(r.eventId);
  }
  const accepted = unique.filter((e) => fresh.has(e.id));
  if (accepted.length > 0 && (await handleEvents(tx, accepted))) await notifyWorkOnCommit(tx);
  return ids;
}

/**
 * What a batch of new events does, in their order, with one statement per kind of change: the runs
 * they start, the runs their `cancelOn` matches, the runs waiting for them. Returns whether any run
 * became due.
 */
async function handleEvents(tx: DbOrTx, events: WfEventPayload[]): Promise<boolean> {
  const functions = await tx.select().from(wfFunctions).where(eq(wfFunctions.active, "active"));
  const position = new Map(events.map((e, i) => [e.id, i]));

  // Runs these events start. Invocations target one function directly (see invokeFunction).
  // Functions whose flow control decides at arrival take their events one by one, in order.
  let queued = false;
  const starts: (typeof wfRuns.$inferInsert)[] = [];
  for (const event of events) {
    if (event.name === INVOKED_EVENT) continue;
    for (const fn of functions) {
      if (!triggeredBy(fn, event)) continue;
      if (gathers(fn)) queued = (await startGathered(tx, fn, event)) || queued;
      else starts.push(runValues(fn, event));
    }
  }
  for (let i = 0; i < starts.length; i += INSERT_CHUNK) {
    const created = await tx
      .insert(wfRuns)
      .values(starts.slice(i, i + INSERT_CHUNK))
      .onConflictDoNothing()
      .returning({ id: wfRuns.id });
    queued ||= created.length > 0;
  }

  // cancelOn: runs of functions that cancel on one of these events, whose expression matches. A
  // run started by a later event of the same batch is not cancelled by an earlier one.
  const names = new Set(events.map((e) => e.name));
  for (const fn of functions) {
    const cancels = (configOf(fn).cancel ?? []).filter((c) => names.has(c.event));
    if (cancels.length === 0) continue;
    const candidates = await tx
      .select()
      .from(wfRuns)
      .where(and(eq(wfRuns.functionId, fn.id), notInArray(wfRuns.status, [...TERMINAL])))
      .for("update");
    for (const run of candidates) {
      const hit = events.find((event, i) =>
        cancels.some((cancel) => {
          if (cancel.event !== event.name) return false;
          if ((position.get(run.event.id) ?? -1) > i) return false;
          const timeout = cancel.timeout ? msUntil(cancel.timeout, run.createdAt.getTime()) : null;
          if (timeout !== null && run.createdAt.getTime() + timeout < Date.now()) return false;
          return matches(cancel.if, { event: run.event, async: event });
        }),
      );
      if (!hit) continue;
      await tx
        .update(wfRuns)
        .set({
          status: "cancelled",
          endedAt: sql`now()`,
          wait: null,
          waits: null,
          leaseUntil: null,
          error: { name: "Cancelled", message: `Cancelled by event ${hit.name} (${hit.id})` },
        })
        .where(eq(wfRuns.id, run.id));
    }
  }

  // waitForEvent: runs awaiting one of these events whose expression matches resume with the
  // first such event — parked runs, and runs executing while other waits of theirs are pending.
  const waiting = await tx
    .select()
    .from(wfRuns)
    .where(
      and(
        sql`${wfRuns.waits} is not null`,
        notInArray(wfRuns.status, [...TERMINAL]),
        or(
          ...[...names].map(
            (name) => sql`${wfRuns.waits} @> ${JSON.stringify([{ kind: "event", event: name }])}::jsonb`,
          ),
        ),
      ),
    )
    .for("update");
  for (const run of waiting) {
    let current = run;
    for (const wait of run.waits ?? []) {
      if (wait.kind !== "event") continue;
      const event = events.find(
        (e) => e.name === wait.event && matches(wait.expression, { event: run.event, async: e }),
      );
      if (!event) continue;
      current = await resolveWait(tx, current, wait.stepId, { data: event });
      queued ||= current.status === "queued";
    }
  }
  return queued;
}

/**
 * Records the outcome of one of a run's pending `waits` (an awaited event, an invoked child's end)
 * and removes it from them. A parked run becomes due now; a run that is executing keeps going and
 * its worker memoizes the outcome (`resolved`) at its next save. Call with the row locked.
 */
export async function resolveWait(tx: DbOrTx, run: RunRow, stepId: string, outcome: unknown): Promise<RunRow> {
  const waits = (run.waits ?? []).filter((w) => w.stepId !== stepId);
  const parked = run.status === "waiting" || run.status === "sleeping";
  const [row] = await tx
    .update(wfRuns)
    .set({
      resolved: sql`coalesce(${wfRuns.resolved}, '{}'::jsonb) || ${JSON.stringify({ [stepId]: outcome })}::jsonb`,
      waits: waits.length > 0 ? waits : null,
      wait: waits[0] ?? null,
      ...(parked ? { status: "queued" as const, dueAt: sql`now()` } : {}),
    })
    .where(eq(wfRuns.id, run.id))
    .returning();
  return row ?? run;
}

/** The run (locked) whose pending `invoke` wait awaits `childRunId`. */
export async function invokingParent(tx: DbOrTx, parentRunId: string, childRunId: string): Promise<RunRow | null> {
  const [parent] = await tx
    .select()
    .from(wfRuns)
    .where(
      and(
        eq(wfRuns.id, parentRunId),
        notInArray(wfRuns.status, [...TERMINAL]),
        sql`${wfRuns.waits} @> ${JSON.stringify([{ kind: "invoke", childRunId }])}::jsonb`,
      ),
    )
    .for("update");
  return parent ?? null;
}

/** Starts a child run of `functionId` for `step.invoke`; null when no such function is registered. */
export async function invokeFunction(
  tx: DbOrTx,
  functionId: string,
  payload: { data?: Record<string, unknown>; v?: string },
  parentRunId: string,
): Promise<RunRow | null> {
  const [fn] = await tx
    .select()
    .from(wfFunctions)
    .where(and(eq(wfFunctions.id, functionId), eq(wfFunctions.active, "active")));
  if (!fn) return null;
  const event: WfEventPayload = {
    id: randomUUID(),
    name: INVOKED_EVENT,
    data: payload.data ?? {},
    ts: Date.now(),
    ...(payload.v ? { v: payload.v } : {}),
  };
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
      const event: WfEventPayload = {
        id: `cron:${fn.id}:${fn.nextCronAt.toISOString()}`,
        name: CRON_EVENT,
        data: { cron: fn.cron },
        ts: now.getTime(),
      };
      const stored = await tx
        .insert(wfEvents)
        .values({ eventId: event.id, name: event.name, payload: event })
        .onConflictDoNothing()
        .returning({ id: wfEvents.id });
      if (stored.length > 0 && (await createRun(tx, fn, event))) n++;
      await tx
        .update(wfFunctions)
        .set({ nextCronAt: nextCronTime(fn.cron, now) })
        .where(eq(wfFunctions.id, fn.id));
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
 * Claims up to `limit` due runs for `leaseMs`, in one transaction: queued runs, sleeps and waits
 * whose time has come, then runs whose worker's lease expired (a crashed process). Per-key
 * concurrency is counted under the claim lock, so a batch never takes more runs of a key than its
 * limit leaves free. `FOR UPDATE SKIP LOCKED` lets workers in several processes share the queue.
 */
export async function claimRuns(
  leaseMs: number,
  functionIds: string[],
  limit: number,
  throttles: Map<string, Throttle> = new Map(),
): Promise<RunRow[]> {
  if (functionIds.length === 0 || limit < 1) return [];
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`);
    // Due runs first (served by a partial index), with how many runs of their key execute now.
    const due = await tx
      .select({
        id: wfRuns.id,
        functionId: wfRuns.functionId,
        key: wfRuns.concurrencyKey,
        limit: wfRuns.concurrencyLimit,
        throttleKey: wfRuns.throttleKey,
        startedAt: wfRuns.startedAt,
        now: sql<Date | string>`now()`,
        running: sql<number>`case when ${wfRuns.concurrencyLimit} is null then 0 else (
            select count(*) from wf_runs x
            where x.function_id = ${wfRuns.functionId}
              and x.concurrency_key is not distinct from ${wfRuns.concurrencyKey}
              and x.status = 'running' and x.lease_until >= now()
          ) end`.mapWith(Number),
      })
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
      // priority.run moves a run ahead of (or behind) runs due at the same time by its seconds.
      .orderBy(sql`${wfRuns.dueAt} - make_interval(secs => ${wfRuns.priority})`, wfRuns.createdAt)
      .limit(limit)
      .for("update", { skipLocked: true });
    const taken = new Map<string, number>();
    const ids: string[] = [];
    const gates = await throttleGates(tx, due, throttles);
    for (const r of due) {
      let k: string | null = null;
      let n = 0;
      if (r.limit !== null) {
        k = `${r.functionId}\u0000${r.key ?? ""}`;
        n = taken.get(k) ?? 0;
        if (r.running + n >= r.limit) continue;
      }
      const gate =
        r.startedAt === null && r.throttleKey !== null ? gates.get(`${r.functionId}\u0000${r.throttleKey}`) : undefined;
      if (gate) {
        const freeAt = admit(gate);
        if (freeAt !== null) {
          // Not yet: due again when the throttle admits its next start (FIFO by creation).
          await tx
            .update(wfRuns)
            .set({ dueAt: new Date(freeAt) })
            .where(eq(wfRuns.id, r.id));
          continue;
        }
      }
      if (k !== null) taken.set(k, n + 1);
      ids.push(r.id);
    }
    await saveGates(tx, gates);
    if (ids.length < limit && due.length < limit) {
      const expired = await tx
        .select({ id: wfRuns.id })
        .from(wfRuns)
        .where(
          and(eq(wfRuns.status, "running"), lt(wfRuns.leaseUntil, sql`now()`), inArray(wfRuns.functionId, functionIds)),
        )
        .limit(limit - ids.length)
        .for("update", { skipLocked: true });
      ids.push(...expired.map((r) => r.id));
    }
    if (ids.length === 0) return [];
    const runs = await tx
      .update(wfRuns)
      .set({
        status: "running",
        leaseUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval`,
        startedAt: sql`coalesce(${wfRuns.startedAt}, now())`,
      })
      .where(inArray(wfRuns.id, ids))
      .returning();
    const order = new Map(ids.map((id, i) => [id, i]));
    return runs.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  });
}

/**
 * A function's `throttle` as Inngest defines it (GCRA): `limit + burst` runs of a key may start at
 * once, then one every `periodMs / limit`; runs over it wait (FIFO), never dropped.
 */
export interface Throttle {
  limit: number;
  periodMs: number;
  burst: number;
}

export function throttleOf(fn: FunctionRow): Throttle | null {
  const t = configOf(fn).throttle;
  if (!t || !(t.limit > 0)) return null;
  return { limit: t.limit, periodMs: msUntil(t.period) ?? 0, burst: Math.max(0, Math.trunc(t.burst ?? 0)) };
}

/** One key's GCRA state during a claim. */
interface Gate extends Gcra {
  functionId: string;
  key: string;
}

/** The GCRA state of every throttled function and key among `due` (read under the claim lock). */
async function throttleGates(
  tx: DbOrTx,
  due: { functionId: string; throttleKey: string | null; startedAt: Date | null; now: Date | string }[],
  throttles: Map<string, Throttle>,
): Promise<Map<string, Gate>> {
  const gates = new Map<string, Gate>();
  const wanted = due.filter((r) => r.startedAt === null && r.throttleKey !== null && throttles.has(r.functionId));
  if (wanted.length === 0) return gates;
  const pairs = [...new Map(wanted.map((r) => [`${r.functionId}\u0000${r.throttleKey}`, r])).values()];
  const rows = await tx
    .select({ functionId: wfThrottles.functionId, key: wfThrottles.key, tat: wfThrottles.tat })
    .from(wfThrottles)
    .where(
      or(
        ...pairs.map((r) =>
          and(eq(wfThrottles.functionId, r.functionId), eq(wfThrottles.key, r.throttleKey as string)),
        ),
      ),
    );
  const now = new Date((wanted[0] as { now: Date | string }).now).getTime();
  const stored = new Map(rows.map((r) => [`${r.functionId}\u0000${r.key}`, r.tat.getTime()]));
  for (const r of pairs) {
    const t = throttles.get(r.functionId) as Throttle;
    const k = `${r.functionId}\u0000${r.throttleKey}`;
    gates.set(k, {
      functionId: r.functionId,
      key: r.throttleKey as string,
      ...gcra(stored.get(k) ?? null, now, t.periodMs / t.limit, t.limit + t.burst),
    });
  }
  return gates;
}

/** Writes back the GCRA state of the keys that admitted starts. */
async function saveGates(tx: DbOrTx, gates: Map<string, Gate>): Promise<void> {
  const changed = [...gates.values()].filter((g) => g.changed);
  if (changed.length === 0) return;
  await tx
    .insert(wfThrottles)
    .values(changed.map((g) => ({ functionId: g.functionId, key: g.key, tat: new Date(g.tat) })))
    .onConflictDoUpdate({ target: [wfThrottles.functionId, wfThrottles.key], set: { tat: sql`excluded.tat` } });
}

/** One due run (see `claimRuns`). */
export async function claimRun(leaseMs: number, functionIds: string[]): Promise<RunRow | null> {
  return (await claimRuns(leaseMs, functionIds, 1))[0] ?? null;
}

/** Extends a run's lease while its worker holds it; null when the lease is no longer that worker's. */
export async function renewLease(runId: string, lease: Date, leaseMs: number): Promise<Date | null> {
  const db = await getDb();
  const [row] = await db
    .update(wfRuns)
    .set({ leaseUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval` })
    .where(and(eq(wfRuns.id, runId), eq(wfRuns.status, "running"), eq(wfRuns.leaseUntil, lease)))
    .returning({ leaseUntil: wfRuns.leaseUntil });
  return row?.leaseUntil ?? null;
}

/**
 * Gives claimed runs that no worker started back to the queue as they were (a stopping executor),
 * guarded by their lease: a parked sleep or wait stays parked, due at once.
 */
export async function releaseRuns(runs: RunRow[]): Promise<void> {
  const db = await getDb();
  for (const run of runs) {
    const waits = run.waits ?? [];
    const status =
      waits.length === 0 || run.resolved ? "queued" : waits.every((w) => w.kind === "sleep") ? "sleeping" : "waiting";
    await db
      .update(wfRuns)
      .set({ status, leaseUntil: null })
      .where(
        and(
          eq(wfRuns.id, run.id),
          eq(wfRuns.status, "running"),
          run.leaseUntil ? eq(wfRuns.leaseUntil, run.leaseUntil) : sql`true`,
        ),
      );
  }
}

/** What an idle executor waits for (see `nextWakeUps`), as the database's clock tells it. */
export interface WakeUps {
  /**
   * The soonest future `due_at` of a pending run. Runs already due but not claimable (their
   * concurrency key is full) are not counted: the run that frees the key wakes the workers
   * (`wakeWorkers`), so idle workers never spin.
   */
  due: Date | null;
  /**
   * A pending run has been due for over a second and no worker took it: a concurrency key that is
   * full, or a wake-up that was missed (a run recovered or re-parked just as the workers looked).
   * The poller then wakes the workers at most once per `pollMs`, so such a run waits at most that
   * long instead of the 15 s sweep.
   */
  overdue: boolean;
  /** The soonest lease of an executing run: past it, the run may be taken over. */
  lease: Date | null;
  /** The soonest `next_cron_at` of an active function (fired by `fireDueCrons`, any app). */
  cron: Date | null;
  now: Date;
}

const WAKE_UPS = new WeakMap<object, ReturnType<typeof prepareWakeUps>>();

function prepareWakeUps(db: Awaited<ReturnType<typeof getDb>>) {
  // The function ids are bound as one JSON array (a single parameter, whatever their number), so
  // the statement's text never changes and it is prepared once per database handle.
  const served = sql`(select jsonb_array_elements_text(${sql.placeholder("ids")}::jsonb))`;
  return db
    .select({
      cron: sql<Date | string | null>`min(${wfFunctions.nextCronAt})`,
      due: sql<Date | string | null>`(select min(r.due_at) from wf_runs r
        where r.status in ('queued', 'sleeping', 'waiting') and r.due_at > now() and r.function_id in ${served})`,
      overdue: sql<boolean | string>`exists (select 1 from wf_runs r where r.status in ('queued', 'sleeping', 'waiting')
        and r.due_at <= now() - interval '1 second' and r.function_id in ${served})`,
      lease: sql<Date | string | null>`(select min(r.lease_until) from wf_runs r
        where r.status = 'running' and r.function_id in ${served})`,
      now: sql<Date | string>`now()`,
    })
    .from(wfFunctions)
    .where(eq(wfFunctions.active, "active"))
    .prepare("wf_next_wake_ups");
}

/**
 * One statement for an idle executor's timers: the next pending run's due time and the next
 * expiring lease among `functionIdsJson` (a JSON array of function ids), and the next cron time.
 */
export async function nextWakeUps(functionIdsJson: string): Promise<WakeUps> {
  const db = await getDb();
  let prepared = WAKE_UPS.get(db);
  if (!prepared) {
    prepared = prepareWakeUps(db);
    WAKE_UPS.set(db, prepared);
  }
  const [row] = await prepared.execute({ ids: functionIdsJson });
  const at = (v: Date | string | null | undefined) => (v ? new Date(v) : null);
  return {
    due: at(row?.due),
    overdue: row?.overdue === true || row?.overdue === "t",
    lease: at(row?.lease),
    cron: at(row?.cron),
    now: at(row?.now) ?? new Date(),
  };
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
 * `only`: just these runs (a test sharing its database with others' live runs).
 */
export async function recoverOrphanedRuns(only?: readonly string[]): Promise<number> {
  const db = await getDb();
  const rows = await db
    .update(wfRuns)
    .set({ status: "queued", leaseUntil: null, dueAt: sql`now()` })
    .where(only ? and(eq(wfRuns.status, "running"), inArray(wfRuns.id, [...only])) : eq(wfRuns.status, "running"))
    .returning({ id: wfRuns.id });
  return rows.length;
}
