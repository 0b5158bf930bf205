import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, tstz } from "./_columns";

/**
 * State of the embedded workflow executor (lib/workflows/executor): the functions the app
 * registered, the events it received, and every run with its memoized step state. Not tenant
 * data: these rows belong to the deployment, and runs carry whatever organization ids their
 * events carry.
 */

export interface WfEventPayload {
  id: string;
  name: string;
  data: Record<string, unknown>;
  user?: Record<string, unknown>;
  ts: number;
  v?: string;
}

/** A function as the SDK registered it (the config is the SDK's own register payload entry). */
export const wfFunctions = pgTable(
  "wf_functions",
  {
    /** The composite id the SDK registers: `<appId>-<functionId>`. */
    id: text().primaryKey(),
    appId: text().notNull(),
    name: text().notNull(),
    /** The serve endpoint to call for this function. */
    url: text().notNull(),
    config: jsonb().$type<Record<string, unknown>>().notNull(),
    /** Cron triggers: when the next run is due, and the schedule it came from. */
    cron: text(),
    nextCronAt: tstz(),
    active: text({ enum: ["active", "removed"] })
      .notNull()
      .default("active"),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [index("wf_functions_cron_idx").on(t.nextCronAt)],
);

export const wfEvents = pgTable(
  "wf_events",
  {
    id: id(),
    /** The event's own id (sent or generated); a repeat within the dedupe window is dropped. */
    eventId: text().notNull(),
    name: text().notNull(),
    payload: jsonb().$type<WfEventPayload>().notNull(),
    receivedAt: createdAt(),
  },
  (t) => [uniqueIndex("wf_events_event_id_key").on(t.eventId), index("wf_events_name_idx").on(t.name, t.receivedAt)],
);

export const RUN_STATUSES = ["queued", "running", "sleeping", "waiting", "completed", "failed", "cancelled"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** What a run is paused on while `sleeping` or `waiting`; its timeout is the run's `dueAt`. */
export interface WfWait {
  kind: "sleep" | "event" | "invoke";
  /** Hashed id of the step that receives the outcome. */
  stepId: string;
  /** The step's name, as the function gave it. */
  name?: string;
  event?: string;
  expression?: string | null;
  /** For `invoke`: the child run. */
  childRunId?: string;
  /** When the sleep ends or the wait/invoke times out (ISO time). */
  until?: string;
}

export interface WfStepRecord {
  id: string;
  name: string;
  op: string;
  status: "completed" | "failed" | "errored" | "sleeping" | "waiting";
  attempt: number;
  error?: unknown;
  at: string;
}

export const wfRuns = pgTable(
  "wf_runs",
  {
    id: id(),
    functionId: text().notNull(),
    /** The triggering event (the first of a batch). */
    event: jsonb().$type<WfEventPayload>().notNull(),
    /** `batchEvents`: every event of the batch, in arrival order (null: just `event`). */
    events: jsonb().$type<WfEventPayload[]>(),
    status: text({ enum: RUN_STATUSES }).notNull().default("queued"),
    /** Function-level attempt, 0-based, as the SDK's `ctx.attempt` for discovery calls. */
    attempt: integer().notNull().default(0),
    /** Attempts allowed for the function and for each step (registered retries + 1). */
    maxAttempts: integer().notNull(),
    /** A step that failed and is due for another attempt (called with `stepId`). */
    retryStep: text(),
    /** Memoized step results keyed by hashed step id: `{data}`, `{error}` or null. */
    steps: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    /** Hashed step ids in the order they completed (the SDK's `ctx.stack.stack`). */
    stack: jsonb().$type<string[]>().notNull().default([]),
    /** Per-step attempts (hashed id → attempts made), for step-level retries. */
    stepAttempts: jsonb().$type<Record<string, number>>().notNull().default({}),
    /** Operator view of what happened, step by step. */
    history: jsonb().$type<WfStepRecord[]>().notNull().default([]),
    /** The first of `waits` (what the run is shown waiting for). */
    wait: jsonb().$type<WfWait>(),
    /**
     * Every sleep, wait and invoke the run awaits at once (null: none). They stay here while the
     * run executes, so an event or a child's end that arrives meanwhile is not lost.
     */
    waits: jsonb().$type<WfWait[]>(),
    /** Outcomes of `waits` that arrived and that no worker has memoized yet (hashed step id → outcome). */
    resolved: jsonb().$type<Record<string, unknown>>(),
    /** When the run is next due (queued now, a sleep's end, a retry's backoff, a wait's timeout). */
    dueAt: tstz().notNull().default(sql`now()`),
    /** A worker's claim: until this time no other worker takes the run. */
    leaseUntil: tstz(),
    /** Per-key concurrency: at most `concurrencyLimit` runs of this function and key execute at once. */
    concurrencyKey: text(),
    concurrencyLimit: integer(),
    /** The function's idempotency key for this run: one run per key and function. */
    idempotencyKey: text(),
    /** Flow control keys (the evaluated `key` expression, "" without one): `throttle` paces starts per key (state in `wf_throttles`), `rateLimit` runs created per key, `debounce`/`batchEvents` gather events into the open run of their key. */
    throttleKey: text(),
    rateKey: text(),
    gatherKey: text(),
    /** `priority.run`: seconds this run moves ahead of (or behind) runs due at the same time. */
    priority: integer().notNull().default(0),
    /** For invoked runs: the parent waiting on the result. */
    parentRunId: uuid(),
    output: jsonb(),
    error: jsonb(),
    createdAt: createdAt(),
    startedAt: tstz(),
    endedAt: tstz(),
  },
  (t) => [
    index("wf_runs_due_idx").on(t.status, t.dueAt),
    // Only runs that can come due; finished runs (the bulk of the table) stay out of it.
    index("wf_runs_pending_due_idx").on(t.dueAt).where(sql`${t.status} in ('queued', 'sleeping', 'waiting')`),
    index("wf_runs_function_idx").on(t.functionId, t.status),
    index("wf_runs_created_idx").on(t.createdAt, t.id),
    index("wf_runs_waiting_idx").on(t.status, t.functionId),
    uniqueIndex("wf_runs_idempotency_key").on(t.functionId, t.idempotencyKey),
    index("wf_runs_waits_idx").on(t.functionId).where(sql`${t.waits} is not null`),
    index("wf_runs_rate_idx").on(t.functionId, t.rateKey, t.createdAt).where(sql`${t.rateKey} is not null`),
    index("wf_runs_gather_idx")
      .on(t.functionId, t.gatherKey)
      .where(sql`${t.gatherKey} is not null and ${t.startedAt} is null`),
  ],
);

/**
 * `throttle` state per function and key: the GCRA theoretical arrival time of the next start
 * (Inngest's definition: `limit + burst` runs may start at once, then one every `period / limit`).
 * Read and written only under the claim lock.
 */
export const wfThrottles = pgTable(
  "wf_throttles",
  {
    functionId: text().notNull(),
    key: text().notNull(),
    tat: tstz().notNull(),
  },
  (t) => [primaryKey({ columns: [t.functionId, t.key] })],
);
