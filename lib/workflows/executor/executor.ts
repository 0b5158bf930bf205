import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { type Db, getDb, type Tx } from "@/db";
import { type WfStepRecord, type WfWait, wfRuns } from "@/db/schema";
import { errorFields, log } from "@/lib/log";
import { type CheckpointOp, type CheckpointResult, openCheckpoint } from "./checkpoint";
import { msUntil } from "./durations";
import { registryGeneration, servedApps, serveHandler } from "./registry";
import { listenForWork, notifyWork, waitForWork, wakeWorkers, workNotifications } from "./signal";
import { canonicalJson, signBody } from "./signing";
import {
  claimRuns,
  FAILED_EVENT,
  fireDueCrons,
  type FunctionRow,
  functionsOfApps,
  ingestEvents,
  invokeFunction,
  nextWakeUps,
  releaseRuns,
  renewLease,
  resolveWait,
  invokingParent,
  type RunRow,
  type Throttle,
  throttleOf,
} from "./store";

/**
 * The embedded executor's workers. Each worker claims a due run and drives it through the app's
 * real `serve()` endpoint over HTTP, one SDK call at a time (the SDK's call protocol, request body
 * version 2), persisting the memoized step state after every call so a crash never loses a
 * finished step. It parks the run when the SDK asks to sleep, wait for an event, invoke another
 * function or retry later.
 */

export interface ExecutorOptions {
  /** Signs every call (`X-Inngest-Signature`) so the SDK accepts it. */
  signingKey: string | null;
  /**
   * This executor's own serve endpoint, from configuration: the only URL it ever calls, whatever
   * URL a function was stored with. It drives runs of the apps registered for this URL only.
   */
  serveUrl: string;
  workers?: number;
  /** First retry delay; doubles per attempt, with jitter, capped at one hour. */
  retryBaseMs?: number;
  /** How long a claim lasts without progress before another worker may take the run over. */
  leaseMs?: number;
  /**
   * Longest wait of the executor's idle poller between two looks at the database (the next due
   * run, expiring lease and cron time), for work no signal announces: timers and leases of runs
   * other processes parked or hold, a missed wake-up. Due times it knows of wake it at once.
   */
  pollMs?: number;
  /** SDK calls per claim before the run goes back to the queue (fairness). */
  maxCallsPerClaim?: number;
  /** Time limit of one call to `serve()`. */
  callTimeoutMs?: number;
  /**
   * How calls reach `serve()`: `auto` hands the signed request to the handler registered in this
   * process for `serveUrl` (see `registerServeHandler`) and falls back to HTTP when there is none;
   * `http` always posts over HTTP.
   */
  transport?: "auto" | "http";
  /**
   * Let the SDK run a call's steps one after another and checkpoint each (its "async
   * checkpointing" mode, see checkpoint.ts) instead of answering after every step. The client
   * serving the functions must answer checkpoints in-process (`checkpointFetch`); default true.
   */
  checkpointing?: boolean;
}

interface Op {
  id: string;
  op: string;
  name?: string;
  displayName?: string;
  data?: unknown;
  error?: unknown;
  opts?: Record<string, unknown>;
}

interface SerializedError {
  name: string;
  message: string;
  stack?: string;
}

/** Mutable working copy of a claimed run. */
interface State {
  steps: Record<string, unknown>;
  stack: string[];
  stepAttempts: Record<string, number>;
  history: WfStepRecord[];
  attempt: number;
  retryStep: string | null;
  lease: Date;
  /** Sleeps, waits and invokes awaited at once, pending (saved with every write). */
  waits: WfWait[];
  /** Keys of the run's `resolved` outcomes memoized here, removed from it by the next save. */
  consumed: string[];
  /** Invokes reported but whose child is not started yet (see `startInvokes`), by step id. */
  invoking: Map<string, { functionId: string; payload: { data?: Record<string, unknown>; v?: string } }>;
  /** The lease-guarded writes made while a call is under way (heartbeat, checkpoints), one at a time. */
  writes: Promise<unknown>;
}

type Outcome =
  | { kind: "continue" }
  /** Back to the queue (a retry, the call budget), or parked on `state.waits` (`awaiting`). */
  | { kind: "park"; status: "queued"; dueInMs: number }
  | { kind: "awaiting" }
  /** Already saved in its parked state (an invocation parks in the transaction that starts the child). */
  | { kind: "parked" }
  | { kind: "complete"; output: unknown }
  | { kind: "fail"; error: SerializedError };

const HISTORY_LIMIT = 200;
const FAR_FUTURE_MS = 365 * 86_400_000;
/**
 * Idle workers are woken to claim at least this often even when nothing says work is due (a
 * wake-up lost while a PostgreSQL listener reconnected, a run due but blocked whose key was freed
 * without a wake-up): the cost of an idle executor is one claim per this interval.
 */
const CLAIM_SWEEP_MS = 15_000;
/** The poller's look at the database, when signals ask for it, at most this often. */
const RECHECK_MIN_MS = 25;
/** An idle worker's own fallback wait (the poller wakes it sooner whenever work may be due). */
const WORKER_IDLE_MS = 300_000;
const DEFAULT_WAIT_MS = 7 * 86_400_000;

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}

function asError(value: unknown, fallback: string): SerializedError {
  if (value && typeof value === "object") {
    const v = value as Record<string, unknown>;
    const inner = (v.error && typeof v.error === "object" ? v.error : v) as Record<string, unknown>;
    if (typeof inner.message === "string") {
      return {
        name: typeof inner.name === "string" ? inner.name : "Error",
        message: inner.message,
        ...(typeof inner.stack === "string" ? { stack: inner.stack } : {}),
      };
    }
  }
  return { name: "Error", message: fallback };
}

function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/**
 * The save of a run that keeps executing with nothing pending (no waits, no outcomes to remove):
 * the common write after each step, prepared once per database handle so it is not rebuilt on
 * every call. Equivalent to the general `save` for that case.
 */
const SAVE_RUNNING = new WeakMap<Db, ReturnType<typeof prepareSaveRunning>>();

function prepareSaveRunning(db: Db) {
  const p = (name: string) => sql.placeholder(name);
  // JSON values are bound as text (JSON.stringify) and cast, as drizzle binds jsonb columns.
  return db
    .update(wfRuns)
    .set({
      steps: sql`${p("steps")}::jsonb`,
      stack: sql`${p("stack")}::jsonb`,
      stepAttempts: sql`${p("stepAttempts")}::jsonb`,
      history: sql`${p("history")}::jsonb`,
      attempt: sql`${p("attempt")}::integer`,
      retryStep: sql`${p("retryStep")}::text`,
      wait: null,
      waits: null,
      leaseUntil: sql`now() + ${p("leaseFor")}::interval`,
    })
    .where(
      and(
        eq(wfRuns.id, sql`${p("id")}::uuid`),
        eq(wfRuns.status, "running"),
        eq(wfRuns.leaseUntil, sql`${p("lease")}::timestamptz`),
      ),
    )
    .returning({ leaseUntil: wfRuns.leaseUntil, resolved: wfRuns.resolved })
    .prepare("wf_runs_save_running");
}

export class Executor {
  private readonly opts: Required<Omit<ExecutorOptions, "signingKey">> & { signingKey: string | null };
  private controller: AbortController | null = null;
  private loops: Promise<void>[] = [];
  /** Functions of the apps served at `serveUrl` (reloaded when a registration is accepted, and every minute). */
  private functions: { generation: number; at: number; byId: Map<string, FunctionRow> } | null = null;
  /** Runs claimed in the last batch that no worker has taken yet. */
  private claimed: RunRow[] = [];
  private claiming: Promise<void> | null = null;
  /** The last claim was full: more runs are probably due, so idle workers claim again at once. */
  private moreDue = false;
  private driving = 0;
  /** Idle workers' waits, ended by `wakeIdle` (the poller's wake-up). */
  private sleepers = new Set<AbortController>();
  /** How many times `wakeIdle` ran (with `workNotifications`, tells a worker it missed a wake-up). */
  private wakes = 0;
  /** Ends the poller's wait early so it looks at the database again (a worker found no work). */
  private recheck: AbortController | null = null;
  private rechecking = false;
  /**
   * Due times of runs this process parked (a retry's backoff, a short sleep), soonest first. The
   * poller's statement sees only future due times, so a run parked for a few milliseconds could
   * fall due between a worker's empty claim and the poller's look and be seen only by the sweep;
   * these make the poller wake the workers at them whatever the statement says.
   */
  private parkedDue: number[] = [];
  /** The served functions' ids as the JSON array `nextWakeUps` binds (cached with them). */
  private idsJson: { served: Map<string, FunctionRow>; json: string } | null = null;
  private throttleCache: { served: Map<string, FunctionRow>; byId: Map<string, Throttle> } | null = null;
  /** `serveUrl` without its fragment: calls append `fnId` and `stepId` to it. */
  private readonly serveBase: string;

  constructor(options: ExecutorOptions) {
    this.opts = {
      workers: 4,
      retryBaseMs: 1000,
      leaseMs: 120_000,
      pollMs: 1000,
      maxCallsPerClaim: 100,
      callTimeoutMs: 300_000,
      transport: "auto",
      checkpointing: true,
      ...options,
    };
    const base = new URL(this.opts.serveUrl);
    base.hash = "";
    base.searchParams.delete("fnId");
    base.searchParams.delete("stepId");
    this.serveBase = base.toString();
  }

  get running(): boolean {
    return this.controller !== null;
  }

  start(): void {
    if (this.controller) return;
    const controller = new AbortController();
    this.controller = controller;
    listenForWork().catch((err: unknown) => log.error("workflow wake-up listener failed", errorFields(err)));
    this.loops = [
      ...Array.from({ length: this.opts.workers }, (_, i) => this.loop(i, controller.signal)),
      this.poll(controller.signal),
    ];
  }

  /** Stops claiming; waits for the runs in hand to reach their next save. */
  async stop(): Promise<void> {
    this.controller?.abort();
    this.controller = null;
    await Promise.all(this.loops);
    this.loops = [];
    // Claimed runs no worker took go back as they were, for any executor to claim.
    const left = this.claimed.splice(0);
    if (left.length > 0) await releaseRuns(left);
  }

  /**
   * A worker: drives the runs it takes, and when there are none waits for a wake-up — work sent
   * in this process or announced by the database (`signal.ts`), or the poller (`poll`) when a
   * run, a lease or a cron time falls due. An idle worker never queries the database itself.
   */
  private async loop(index: number, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const seen = this.wakes + workNotifications();
        const run = await this.take();
        if (run) {
          this.driving++;
          try {
            await this.drive(run, signal);
          } finally {
            this.driving--;
          }
          continue;
        }
        if (this.moreDue) continue;
        // Nothing to claim: the poller learns the next due time (a run this worker just parked,
        // a throttled start the claim deferred) before the worker sleeps, unless a wake-up came
        // while it looked (then it looks again at once).
        this.recheckSoon();
        if (this.wakes + workNotifications() !== seen) continue;
        await this.idle(WORKER_IDLE_MS, signal);
      } catch (err) {
        if (signal.aborted) break;
        log.error("workflow worker error", { worker: index, ...errorFields(err) });
        await waitForWork(this.opts.pollMs, signal);
      }
    }
  }

  /** An idle worker's wait: the next wake-up (this process's signal, or `wakeIdle`), or `ms`. */
  private async idle(ms: number, signal: AbortSignal): Promise<void> {
    const sleeper = new AbortController();
    this.sleepers.add(sleeper);
    try {
      await waitForWork(ms, AbortSignal.any([signal, sleeper.signal]));
    } finally {
      this.sleepers.delete(sleeper);
    }
  }

  /** Wakes the idle workers to claim. */
  private wakeIdle(): void {
    this.wakes++;
    for (const sleeper of this.sleepers) sleeper.abort();
    this.sleepers.clear();
  }

  /** Remembers when a run this process parked falls due (see `parkedDue`); the poller wakes at it. */
  private noteParked(dueInMs: number | undefined): void {
    if (dueInMs === undefined || !Number.isFinite(dueInMs) || dueInMs > CLAIM_SWEEP_MS) return;
    const at = Date.now() + Math.max(0, dueInMs);
    let i = this.parkedDue.length;
    while (i > 0 && (this.parkedDue[i - 1] ?? 0) > at) i--;
    this.parkedDue.splice(i, 0, at);
    if (this.parkedDue.length > 1000) this.parkedDue.pop();
  }

  /** Asks the poller to look at the database again now (coalesced: at most every `RECHECK_MIN_MS`). */
  private recheckSoon(): void {
    this.rechecking = true;
    this.recheck?.abort();
  }

  /**
   * The executor's one idle poller (the workers never poll). One prepared statement tells it the
   * next pending run's due time, the next lease to expire and the next cron time; it sleeps until
   * the soonest of them or `pollMs` (other processes' timers), waking early when a worker finds no
   * work (it may have parked a run due later, or a claim deferred a throttled start). When one falls due it fires due crons
   * or wakes the workers to claim; every `CLAIM_SWEEP_MS` it wakes them regardless.
   */
  private async poll(signal: AbortSignal): Promise<void> {
    let sweptAt = Date.now();
    let checkedAt = 0;
    let overdueWokeAt = 0;
    /** When (this process's clock) the due time the poller last found arrives. */
    let dueAt: number | null = null;
    const wakeIfDue = () => {
      const now = Date.now();
      let due = dueAt !== null && now >= dueAt;
      if (due) dueAt = null;
      while ((this.parkedDue[0] ?? Number.POSITIVE_INFINITY) <= now) {
        this.parkedDue.shift();
        due = true;
      }
      if (due) this.wakeIdle();
    };
    while (!signal.aborted) {
      let wait = this.opts.pollMs;
      try {
        // Coalesce rechecks: workers going idle one after another cost one look at the database.
        const since = Date.now() - checkedAt;
        if (since < RECHECK_MIN_MS) await pause(RECHECK_MIN_MS - since, signal);
        this.rechecking = false;
        checkedAt = Date.now();
        // A due time that arrived since is no longer in the statement's answer (it counts future
        // ones only): the workers claim it now.
        wakeIfDue();
        const next = await nextWakeUps(this.servedIdsJson(await this.servedFunctions()));
        const now = next.now.getTime();
        if (next.cron && next.cron.getTime() <= now) {
          // Creates the due cron runs (and wakes the workers when it did); another process may
          // hold them (skip locked), so a cron time still past is looked at again after `pollMs`.
          await fireDueCrons();
        }
        if ((next.lease && next.lease.getTime() <= now) || Date.now() - sweptAt >= CLAIM_SWEEP_MS) {
          sweptAt = Date.now();
          this.wakeIdle();
        } else if (next.overdue && Date.now() - overdueWokeAt >= this.opts.pollMs) {
          // A run due for a while that nobody took (see WakeUps.overdue): the workers look again.
          overdueWokeAt = Date.now();
          this.wakeIdle();
        }
        let soonest = Number.POSITIVE_INFINITY;
        for (const at of [next.due, next.lease, next.cron]) {
          const ms = at ? at.getTime() - now : Number.POSITIVE_INFINITY;
          if (ms > 0) soonest = Math.min(soonest, ms);
        }
        const parked = this.parkedDue[0];
        if (parked !== undefined) soonest = Math.min(soonest, Math.max(5, parked - Date.now()));
        if (soonest <= wait) {
          wait = Math.max(5, soonest);
          dueAt = Date.now() + wait;
        } else {
          dueAt = null;
        }
      } catch (err) {
        if (signal.aborted) break;
        log.error("workflow poller error", errorFields(err));
      }
      if (this.rechecking) continue;
      const recheck = new AbortController();
      this.recheck = recheck;
      // Not woken by work signals: the workers they wake claim first, and those that find nothing
      // ask for a recheck (which also covers a signalled run due later: debounce, batches).
      await pause(wait, AbortSignal.any([signal, recheck.signal]));
      this.recheck = null;
      if (signal.aborted) break;
      wakeIfDue();
      // Asked by a worker that found nothing: the others finish their claims first.
      if (recheck.signal.aborted) await pause(RECHECK_MIN_MS, signal);
    }
  }

  /** The served functions' ids as one JSON array (cached with them; see `nextWakeUps`). */
  private servedIdsJson(served: Map<string, FunctionRow>): string {
    if (this.idsJson?.served !== served) this.idsJson = { served, json: JSON.stringify([...served.keys()]) };
    return this.idsJson.json;
  }

  /**
   * The next claimed run for a worker: from the runs claimed with the last batch, else from a new
   * batch claim sized to the idle workers (one claim at a time per executor; workers that arrive
   * while it is under way share its result).
   */
  private async take(): Promise<RunRow | null> {
    const queued = await this.nextClaimed();
    if (queued) return queued;
    if (!this.claiming) {
      this.claiming = (async () => {
        const served = await this.servedFunctions();
        if (served.size === 0) return;
        // While runs are backed up (the last claim was full), a whole batch: the workers that
        // finish next take theirs from it instead of making a claim transaction each.
        const wanted = this.moreDue ? this.opts.workers : Math.max(1, this.opts.workers - this.driving);
        const runs = await claimRuns(this.opts.leaseMs, [...served.keys()], wanted, this.throttles(served));
        this.moreDue = runs.length === wanted;
        this.claimed.push(...runs);
      })().finally(() => {
        this.claiming = null;
      });
    }
    await this.claiming;
    return this.nextClaimed();
  }

  /**
   * The first run of the last batch no worker has taken yet. One that waited there for more than
   * half its lease has it renewed first, and is dropped if the lease was lost meanwhile.
   */
  private async nextClaimed(): Promise<RunRow | null> {
    for (let run = this.claimed.shift(); run; run = this.claimed.shift()) {
      const lease = run.leaseUntil;
      if (!lease) continue;
      if (lease.getTime() - Date.now() > this.opts.leaseMs / 2) return run;
      const renewed = await renewLease(run.id, lease, this.opts.leaseMs);
      if (renewed) return { ...run, leaseUntil: renewed };
    }
    return null;
  }

  /** The throttles of the served functions (cached with them). */
  private throttles(served: Map<string, FunctionRow>): Map<string, Throttle> {
    if (this.throttleCache?.served !== served) {
      const byId = new Map<string, Throttle>();
      for (const [id, fn] of served) {
        const t = throttleOf(fn);
        if (t) byId.set(id, t);
      }
      this.throttleCache = { served, byId };
    }
    return this.throttleCache.byId;
  }

  /** The functions this executor may run, by id (cached; see `functions`). */
  private async servedFunctions(): Promise<Map<string, FunctionRow>> {
    const generation = registryGeneration();
    const cached = this.functions;
    if (cached && cached.generation === generation && Date.now() - cached.at < 60_000) return cached.byId;
    const rows = await functionsOfApps(servedApps(this.opts.serveUrl));
    this.functions = { generation, at: Date.now(), byId: new Map(rows.map((f) => [f.id, f])) };
    return this.functions.byId;
  }

  private backoff(attempt: number): number {
    const base = this.opts.retryBaseMs * 2 ** Math.max(0, attempt - 1);
    return Math.min(3_600_000, Math.round(base * (0.75 + Math.random() * 0.5)));
  }

  /** Drives one claimed run until it parks, ends, loses its lease or uses its call budget. */
  async drive(run: RunRow, signal?: AbortSignal): Promise<void> {
    const fn = (await this.servedFunctions()).get(run.functionId) ?? null;
    const state: State = {
      steps: { ...run.steps },
      stack: [...run.stack],
      stepAttempts: { ...run.stepAttempts },
      history: [...run.history],
      attempt: run.attempt,
      retryStep: run.retryStep,
      lease: run.leaseUntil ?? new Date(),
      waits: [...(run.waits ?? [])],
      consumed: [],
      invoking: new Map(),
      writes: Promise.resolve(),
    };
    if (!fn || fn.active !== "active") {
      await this.finish(run, state, {
        kind: "fail",
        error: { name: "FunctionNotFound", message: `Function ${run.functionId} is not registered.` },
      });
      return;
    }
    // Outcomes that arrived for its waits, then the sleeps, waits and invokes whose time came
    // (as of the claim: the lease started then), which resolve with their timeout outcome.
    this.absorb(state, run.resolved);
    const claimedAt = (run.leaseUntil?.getTime() ?? Date.now()) - this.opts.leaseMs;
    for (const wait of [...state.waits]) {
      if (!wait.until || Date.parse(wait.until) > claimedAt) continue;
      const timeout =
        wait.kind === "invoke"
          ? { error: { name: "InngestInvokeTimeoutError", message: "Timed out waiting for the invoked function." } }
          : { data: null };
      this.settle(
        state,
        wait.stepId,
        wait.name ?? wait.kind,
        timeout,
        wait.kind === "sleep" ? "completed" : "failed",
        wait.kind === "sleep" ? undefined : "timed out",
      );
    }
    for (let calls = 0; calls < this.opts.maxCallsPerClaim; calls++) {
      const outcome = await this.withHeartbeat(run, state, () => this.step(fn, run, state));
      if (outcome.kind !== "continue") {
        await this.finish(run, state, outcome);
        return;
      }
      if (!(await this.save(run, state, { status: "running" }))) return; // lease lost or cancelled
      if (signal?.aborted) {
        await this.finish(run, state, { kind: "park", status: "queued", dueInMs: 0 });
        return;
      }
    }
    await this.finish(run, state, { kind: "park", status: "queued", dueInMs: 0 });
  }

  /** Memoizes outcomes of the run's waits that arrived (`resolved`); the next save removes them. */
  private absorb(state: State, resolved: Record<string, unknown> | null | undefined): void {
    for (const [stepId, outcome] of Object.entries(resolved ?? {})) {
      if (!state.consumed.includes(stepId)) state.consumed.push(stepId);
      if (stepId in state.steps) continue;
      const wait = state.waits.find((w) => w.stepId === stepId);
      const name = wait?.name ?? wait?.kind ?? "wait";
      const error = outcome && typeof outcome === "object" && "error" in outcome ? outcome.error : undefined;
      this.settle(state, stepId, name, outcome, error === undefined ? "completed" : "failed", error);
    }
  }

  /** A pending wait's step gets its outcome and leaves the pending waits. */
  private settle(
    state: State,
    stepId: string,
    name: string,
    outcome: unknown,
    status: WfStepRecord["status"],
    error?: unknown,
  ): void {
    state.steps[stepId] = outcome;
    if (!state.stack.includes(stepId)) state.stack.push(stepId);
    state.waits = state.waits.filter((w) => w.stepId !== stepId);
    this.record(state, stepId, name, status, error);
  }

  /**
   * Runs `work` (an SDK call) while keeping the run's lease alive, so a step that takes longer than
   * the lease is not taken over by another worker and run twice. A heartbeat that finds the lease
   * gone (cancelled, taken over) stops; the save after the call then fails its guard.
   */
  private async withHeartbeat<T>(run: RunRow, state: State, work: () => Promise<T>): Promise<T> {
    const timer = setInterval(
      () => {
        void this.serially(state, async () => {
          const lease = await renewLease(run.id, state.lease, this.opts.leaseMs);
          if (lease) state.lease = lease;
          else clearInterval(timer);
        }).catch((err: unknown) => log.warn("workflow lease renewal failed", { runId: run.id, ...errorFields(err) }));
      },
      Math.max(50, Math.floor(this.opts.leaseMs / 3)),
    );
    try {
      return await work();
    } finally {
      clearInterval(timer);
      await state.writes;
    }
  }

  /**
   * Runs a lease-guarded write made while a call is under way after the ones before it: a
   * heartbeat and a checkpoint both replace `state.lease`, so they never race on it.
   */
  private serially<T>(state: State, write: () => Promise<T>): Promise<T> {
    const result = state.writes.then(write);
    state.writes = result.catch(() => undefined);
    return result;
  }

  /**
   * Records the steps of one SDK checkpoint (checkpoint.ts) against the run's lease, as a save
   * after a call would: memoized, then written with the lease guard, before the SDK goes on. Only
   * completed steps come this way; anything else the SDK reports in its answer instead.
   */
  private recordCheckpoint(run: RunRow, state: State, ops: CheckpointOp[], closed: () => boolean) {
    return this.serially(state, async (): Promise<CheckpointResult> => {
      if (closed()) return "stale";
      if (!ops.every((op) => op.op === "StepRun" || op.op === "Step")) return "unsupported";
      for (const op of ops) if (!(op.id in state.steps)) this.memo(state, op, { data: op.data ?? null });
      return (await this.save(run, state, { status: "running" })) ? "recorded" : "stale";
    });
  }

  /** One SDK call and what follows from its answer. */
  private async step(fn: FunctionRow, run: RunRow, state: State): Promise<Outcome> {
    const stepId = state.retryStep ?? "step";
    const attempt = state.retryStep ? (state.stepAttempts[state.retryStep] ?? 0) : state.attempt;
    let response: Response;
    let text: string;
    try {
      response = await this.call(fn, run, state, stepId, attempt);
      text = await response.text();
    } catch (err) {
      return this.functionError(
        run,
        state,
        {
          name: "FetchError",
          message: `Calling ${fn.url} failed: ${err instanceof Error ? err.message : String(err)}`,
        },
        null,
        false,
      );
    }
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    const noRetry = response.headers.get("x-inngest-no-retry") === "true";
    const retryAfter = retryAfterMs(response.headers.get("retry-after"));

    if (response.status === 200) return { kind: "complete", output: body };
    if (response.status === 206 && Array.isArray(body)) return this.applyOps(fn, run, state, body as Op[], retryAfter);
    const error = asError(body, `serve() answered ${response.status}`);
    return this.functionError(run, state, error, retryAfter, noRetry || response.status === 400);
  }

  private functionError(
    run: RunRow,
    state: State,
    error: SerializedError,
    retryAfter: number | null,
    final: boolean,
  ): Outcome {
    this.record(state, "step", "function", "errored", error);
    state.attempt += 1;
    if (final || state.attempt >= run.maxAttempts) return { kind: "fail", error };
    return { kind: "park", status: "queued", dueInMs: retryAfter ?? this.backoff(state.attempt) };
  }

  private async applyOps(
    fn: FunctionRow,
    run: RunRow,
    state: State,
    ops: Op[],
    retryAfter: number | null,
  ): Promise<Outcome> {
    const planned: Op[] = [];
    const blocking: Op[] = [];
    let progressed = false;
    for (const op of ops) {
      switch (op.op) {
        case "Step":
        case "StepRun":
          this.memo(state, op, { data: op.data ?? null });
          progressed = true;
          break;
        case "StepFailed":
          this.memo(state, op, { error: asError(op.error, "step failed") }, "failed");
          progressed = true;
          break;
        case "StepError": {
          const attempts = (state.stepAttempts[op.id] ?? 0) + 1;
          state.stepAttempts[op.id] = attempts;
          this.record(state, op.id, op.displayName ?? op.name ?? op.id, "errored", asError(op.error, "step errored"));
          if (attempts >= run.maxAttempts) {
            // The SDK normally reports the last attempt as StepFailed; never retry past the limit.
            this.memo(state, op, { error: asError(op.error, "step failed") }, "failed");
            break;
          }
          state.retryStep = op.id;
          return { kind: "park", status: "queued", dueInMs: retryAfter ?? this.backoff(attempts) };
        }
        case "StepPlanned":
          if (!(op.id in state.steps) && !planned.some((p) => p.id === op.id)) planned.push(op);
          break;
        case "Sleep":
        case "WaitForEvent":
        case "InvokeFunction":
          if (!(op.id in state.steps) && !blocking.some((b) => b.id === op.id)) blocking.push(op);
          break;
        case "RunComplete":
          return { kind: "complete", output: op.data ?? null };
        default:
          return {
            kind: "fail",
            error: {
              name: "UnsupportedOperation",
              message: `The embedded executor does not support the ${op.op} step operation.`,
            },
          };
      }
    }
    // Sleeps, waits and invokes start when the SDK reports them, all of them at once (several
    // awaited together park and resume together), even while planned steps still run.
    progressed = this.startWaits(state, blocking) || progressed;
    // Planned steps (parallel groups, sendEvent) run one at a time, each by its own call.
    if (planned.length > 0) state.retryStep = planned[0]?.id ?? null;
    const park = planned.length === 0 && !progressed && blocking.length > 0;
    const invokes = state.waits.filter((w) => w.kind === "invoke" && !w.childRunId);
    if (invokes.length > 0) return this.startInvokes(run, state, invokes, park);
    return park ? { kind: "awaiting" } : { kind: "continue" };
  }

  /**
   * Adds the sleeps, waits and invokes the SDK reported that are not pending yet to `state.waits`,
   * each with its deadline (a zero sleep is done at once). Returns whether a step was memoized.
   */
  private startWaits(state: State, ops: Op[]): boolean {
    let memoized = false;
    const now = Date.now();
    for (const op of ops) {
      if (state.waits.some((w) => w.stepId === op.id)) continue;
      const label = op.displayName ?? op.name ?? op.id;
      if (op.op === "Sleep") {
        const ms = msUntil(op.name ?? "") ?? 0;
        if (ms <= 0) {
          this.memo(state, op, { data: null });
          memoized = true;
          continue;
        }
        this.record(state, op.id, label, "sleeping");
        state.waits.push({ kind: "sleep", stepId: op.id, name: label, until: new Date(now + ms).toISOString() });
      } else if (op.op === "WaitForEvent") {
        const timeout =
          typeof op.opts?.timeout === "string" ? (msUntil(op.opts.timeout) ?? DEFAULT_WAIT_MS) : DEFAULT_WAIT_MS;
        const expression = typeof op.opts?.if === "string" ? op.opts.if : null;
        this.record(state, op.id, label, "waiting");
        state.waits.push({
          kind: "event",
          stepId: op.id,
          name: label,
          event: op.name ?? "",
          expression,
          until: new Date(now + timeout).toISOString(),
        });
      } else {
        const timeout =
          typeof op.opts?.timeout === "string" ? (msUntil(op.opts.timeout) ?? FAR_FUTURE_MS) : FAR_FUTURE_MS;
        this.record(state, op.id, label, "waiting");
        // The child starts in the transaction that saves this wait (startInvokes).
        state.waits.push({ kind: "invoke", stepId: op.id, name: label, until: new Date(now + timeout).toISOString() });
        const functionId = typeof op.opts?.function_id === "string" ? op.opts.function_id : "";
        state.invoking.set(op.id, { functionId, payload: op.opts?.payload ?? {} });
      }
    }
    return memoized;
  }

  /** Starts the children of new invokes in the transaction that saves the run with their waits. */
  private async startInvokes(run: RunRow, state: State, invokes: WfWait[], park: boolean): Promise<Outcome> {
    const db = await getDb();
    let missing = false;
    const saved = await db.transaction(async (tx) => {
      for (const wait of invokes) {
        const { functionId, payload } = state.invoking.get(wait.stepId) ?? { functionId: "", payload: {} };
        state.invoking.delete(wait.stepId);
        const created = await invokeFunction(tx, functionId, payload, run.id);
        if (created) {
          wait.childRunId = created.id;
        } else {
          missing = true;
          this.settle(
            state,
            wait.stepId,
            wait.name ?? "invoke",
            { error: { name: "Error", message: `No function ${functionId} to invoke.` } },
            "failed",
          );
        }
      }
      const parked = !missing && park;
      const ok = await this.save(run, state, parked ? this.parking(state) : { status: "running" }, tx);
      if (!ok) throw new Error("lease lost while invoking");
      return parked;
    });
    return saved ? { kind: "parked" } : { kind: "continue" };
  }

  /** How a run parks on its pending waits: sleeping or waiting, due at the first deadline. */
  private parking(state: State): { status: "sleeping" | "waiting"; dueInMs: number } {
    const first = Math.min(...state.waits.map((w) => (w.until ? Date.parse(w.until) : Date.now() + FAR_FUTURE_MS)));
    return {
      status: state.waits.every((w) => w.kind === "sleep") ? "sleeping" : "waiting",
      dueInMs: first - Date.now(),
    };
  }

  private memo(state: State, op: Op, value: unknown, status: WfStepRecord["status"] = "completed"): void {
    state.steps[op.id] = value;
    if (!state.stack.includes(op.id)) state.stack.push(op.id);
    if (state.retryStep === op.id) state.retryStep = null;
    const error = status === "failed" ? (value as { error?: unknown }).error : undefined;
    this.record(state, op.id, op.displayName ?? op.name ?? op.id, status, error);
  }

  private record(state: State, id: string, name: string, status: WfStepRecord["status"], error?: unknown): void {
    const attempt = id === "step" ? state.attempt : (state.stepAttempts[id] ?? 0);
    state.history.push({
      id,
      name,
      op: name,
      status,
      attempt,
      ...(error === undefined ? {} : { error }),
      at: new Date().toISOString(),
    });
    if (state.history.length > HISTORY_LIMIT) state.history.splice(0, state.history.length - HISTORY_LIMIT);
  }

  private async call(fn: FunctionRow, run: RunRow, state: State, stepId: string, attempt: number): Promise<Response> {
    // A call that names no step may run several and checkpoint each (see checkpoint.ts): its
    // `fn_id` turns the SDK's checkpointing on, and `qi_id` is the token its checkpoints must carry.
    const token = this.opts.checkpointing && stepId === "step" ? randomUUID() : null;
    const body = {
      version: 2,
      event: run.event,
      events: run.events ?? [run.event],
      steps: state.steps,
      ctx: {
        run_id: run.id,
        ...(token ? { fn_id: fn.id, qi_id: token } : {}),
        attempt,
        max_attempts: run.maxAttempts,
        disable_immediate_execution: false,
        use_api: false,
        stack: { stack: state.stack, current: state.stack.length },
      },
    };
    if (!token) return this.send(fn, stepId, body);
    let ended = false;
    const close = openCheckpoint(run.id, token, (ops) => this.recordCheckpoint(run, state, ops, () => ended));
    try {
      return await this.send(fn, stepId, body);
    } finally {
      ended = true;
      close();
    }
  }

  /** Signs a call's body and hands it to `serve()` (in-process, or over HTTP). */
  private async send(fn: FunctionRow, stepId: string, body: unknown): Promise<Response> {
    const canonical = canonicalJson(body);
    // Always this executor's own endpoint: a URL stored with the function is never called.
    const url = `${this.serveBase}${this.serveBase.includes("?") ? "&" : "?"}fnId=${encodeURIComponent(fn.id)}&stepId=${encodeURIComponent(stepId)}`;
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      "X-Inngest-Server-Kind": this.opts.signingKey ? "cloud" : "dev",
      "X-Inngest-Req-Version": "2",
    };
    if (this.opts.signingKey) headers["X-Inngest-Signature"] = signBody(canonical, this.opts.signingKey);
    const handler = this.opts.transport === "auto" ? serveHandler(this.opts.serveUrl) : null;
    if (!handler)
      return fetch(
        new Request(url, {
          method: "POST",
          headers,
          body: canonical,
          signal: AbortSignal.timeout(this.opts.callTimeoutMs),
        }),
      );
    const request = new Request(url, { method: "POST", headers, body: canonical });
    // In-process: the same signed request, handed to the app's serve() handler.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.opts.callTimeoutMs} ms`)),
        this.opts.callTimeoutMs,
      );
    });
    try {
      return await Promise.race([handler(request), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Writes the working state back, guarded by the lease (a cancelled run or one taken over by
   * another worker is not overwritten). Returns false when the guard failed.
   */
  private async save(
    run: RunRow,
    state: State,
    next: { status: RunRow["status"]; dueInMs?: number; output?: unknown; error?: unknown },
    tx?: Tx,
  ): Promise<boolean> {
    const db = tx ?? (await getDb());
    if (!tx && next.status === "running" && state.consumed.length === 0 && state.waits.length === 0) {
      let prepared = SAVE_RUNNING.get(db);
      if (!prepared) {
        prepared = prepareSaveRunning(db);
        SAVE_RUNNING.set(db, prepared);
      }
      const [row] = await prepared.execute({
        id: run.id,
        lease: state.lease.toISOString(),
        leaseFor: `${this.opts.leaseMs} milliseconds`,
        steps: JSON.stringify(state.steps),
        stack: JSON.stringify(state.stack),
        stepAttempts: JSON.stringify(state.stepAttempts),
        history: JSON.stringify(state.history),
        attempt: state.attempt,
        retryStep: state.retryStep,
      });
      if (!row) return false;
      if (row.leaseUntil) state.lease = row.leaseUntil;
      this.absorb(state, row.resolved);
      return true;
    }
    const terminal = next.status === "completed" || next.status === "failed";
    // Outcomes that arrived for pending waits since the claim stay in `resolved` until memoized
    // here: this write removes the ones memoized, keeps waits that were resolved meanwhile out of
    // `waits`, and a run parking on waits with an outcome already there is due at once instead.
    const left =
      state.consumed.length > 0
        ? sql`(coalesce(${wfRuns.resolved}, '{}'::jsonb) - array[${sql.join(
            state.consumed.map((k) => sql`${k}`),
            sql`, `,
          )}]::text[])`
        : sql`coalesce(${wfRuns.resolved}, '{}'::jsonb)`;
    const waits =
      terminal || state.waits.length === 0
        ? null
        : sql`(select jsonb_agg(w) from jsonb_array_elements(${JSON.stringify(state.waits)}::jsonb) w where not (${left} ? (w->>'stepId')))`;
    const due = sql`now() + ${`${Math.max(0, Math.round(next.dueInMs ?? 0))} milliseconds`}::interval`;
    const parking = next.status === "sleeping" || next.status === "waiting";
    const [row] = await db
      .update(wfRuns)
      .set({
        steps: state.steps,
        stack: state.stack,
        stepAttempts: state.stepAttempts,
        history: state.history,
        attempt: state.attempt,
        retryStep: state.retryStep,
        status: parking ? sql`case when ${left} <> '{}'::jsonb then 'queued' else ${next.status} end` : next.status,
        wait: terminal ? null : (state.waits[0] ?? null),
        waits,
        resolved: terminal ? null : sql`nullif(${left}, '{}'::jsonb)`,
        // A run that keeps executing leaves `due_at` alone: it is indexed, and an unchanged indexed
        // column lets PostgreSQL update the row in place (HOT) without touching every index.
        ...(next.status === "running"
          ? {}
          : { dueAt: parking ? sql`case when ${left} <> '{}'::jsonb then now() else ${due} end` : due }),
        leaseUntil: next.status === "running" ? sql`now() + ${`${this.opts.leaseMs} milliseconds`}::interval` : null,
        ...(next.output !== undefined ? { output: next.output } : {}),
        ...(next.error !== undefined ? { error: next.error } : {}),
        ...(terminal ? { endedAt: sql`now()` } : {}),
      })
      .where(and(eq(wfRuns.id, run.id), eq(wfRuns.status, "running"), eq(wfRuns.leaseUntil, state.lease)))
      .returning({ leaseUntil: wfRuns.leaseUntil, resolved: wfRuns.resolved });
    if (!row) return false;
    if (row.leaseUntil) state.lease = row.leaseUntil;
    state.consumed = [];
    // Outcomes that arrived while the run executes: memoized now, removed by the next save.
    if (next.status === "running") this.absorb(state, row.resolved);
    return true;
  }

  private async finish(run: RunRow, state: State, outcome: Exclude<Outcome, { kind: "continue" }>): Promise<void> {
    if (outcome.kind === "parked") {
      notifyWork();
      return;
    }
    if (outcome.kind === "park" || outcome.kind === "awaiting") {
      const saved = await this.save(
        run,
        state,
        outcome.kind === "park" ? { status: outcome.status, dueInMs: outcome.dueInMs } : this.parking(state),
      );
      if (saved && outcome.kind === "park") this.noteParked(outcome.dueInMs);
      // A run of a concurrency key that stops executing lets the next one of that key start.
      if (saved && run.concurrencyLimit !== null) await wakeWorkers();
      return;
    }
    const db = await getDb();
    const end = (tx?: Tx) =>
      outcome.kind === "complete"
        ? this.save(run, state, { status: "completed", output: outcome.output ?? null }, tx)
        : this.save(run, state, { status: "failed", error: outcome.error }, tx);
    // One statement when no parent waits on this run; with one, the parent resumes in the same transaction.
    const saved = !run.parentRunId
      ? await end()
      : await db.transaction(async (tx) => {
          if (!(await end(tx))) return false;
          if (run.parentRunId) {
            const parent = await invokingParent(tx, run.parentRunId, run.id);
            const wait = parent?.waits?.find((w) => w.kind === "invoke" && w.childRunId === run.id);
            if (parent && wait)
              await resolveWait(
                tx,
                parent,
                wait.stepId,
                outcome.kind === "complete" ? { data: outcome.output ?? null } : { error: outcome.error },
              );
          }
          return true;
        });
    if (!saved) return;
    if (outcome.kind === "fail") {
      log.warn("workflow run failed", { runId: run.id, functionId: run.functionId, error: outcome.error.message });
      // onFailure handlers are functions triggered by this event (never for a failure handler itself).
      if (run.event.name !== FAILED_EVENT) {
        await ingestEvents([
          {
            name: FAILED_EVENT,
            data: { function_id: run.functionId, run_id: run.id, error: outcome.error, event: run.event },
          },
        ]);
      }
    }
    if (run.concurrencyLimit !== null) await wakeWorkers();
    else if (run.parentRunId) notifyWork();
  }
}
