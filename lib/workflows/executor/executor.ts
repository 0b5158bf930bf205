import { and, eq, sql } from "drizzle-orm";
import { getDb, type Tx } from "@/db";
import { type WfStepRecord, type WfWait, wfRuns } from "@/db/schema";
import { errorFields, log } from "@/lib/log";
import { msUntil } from "./durations";
import { registryGeneration, servedApps, serveHandler } from "./registry";
import { listenForWork, notifyWork, waitForWork, wakeWorkers } from "./signal";
import { canonicalJson, signBody } from "./signing";
import {
  claimRuns,
  FAILED_EVENT,
  fireDueCrons,
  type FunctionRow,
  functionsOfApps,
  ingestEvents,
  invokeFunction,
  nextDueAt,
  releaseRuns,
  renewLease,
  resumeWithStep,
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
  /** Longest idle wait between checks for due work (cron, timers, other processes). */
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
}

type Outcome =
  | { kind: "continue" }
  | { kind: "park"; status: "queued" | "sleeping" | "waiting"; dueInMs: number; wait: WfWait | null }
  /** Already saved in its parked state (an invocation parks in the transaction that starts the child). */
  | { kind: "parked" }
  | { kind: "complete"; output: unknown }
  | { kind: "fail"; error: SerializedError };

const HISTORY_LIMIT = 200;
const FAR_FUTURE_MS = 365 * 86_400_000;
/** How often worker 0 looks for due cron functions. */
const CRON_CHECK_MS = 1000;
const DEFAULT_WAIT_MS = 7 * 86_400_000;

function asError(value: unknown, fallback: string): SerializedError {
  if (value && typeof value === "object") {
    const v = value as Record<string, unknown>;
    const inner = (v.error && typeof v.error === "object" ? v.error : v) as Record<string, unknown>;
    if (typeof inner.message === "string") {
      return { name: typeof inner.name === "string" ? inner.name : "Error", message: inner.message, ...(typeof inner.stack === "string" ? { stack: inner.stack } : {}) };
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
  private cronCheckedAt = 0;
  private throttleCache: { served: Map<string, FunctionRow>; byId: Map<string, Throttle> } | null = null;

  constructor(options: ExecutorOptions) {
    this.opts = {
      workers: 4,
      retryBaseMs: 1000,
      leaseMs: 120_000,
      pollMs: 1000,
      maxCallsPerClaim: 100,
      callTimeoutMs: 300_000,
      transport: "auto",
      ...options,
    };
  }

  get running(): boolean {
    return this.controller !== null;
  }

  start(): void {
    if (this.controller) return;
    const controller = new AbortController();
    this.controller = controller;
    listenForWork().catch((err: unknown) => log.error("workflow wake-up listener failed", errorFields(err)));
    this.loops = Array.from({ length: this.opts.workers }, (_, i) => this.loop(i, controller.signal));
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

  private async loop(index: number, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        if (index === 0 && Date.now() - this.cronCheckedAt >= CRON_CHECK_MS) {
          this.cronCheckedAt = Date.now();
          await fireDueCrons();
        }
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
        const served = await this.servedFunctions();
        const next = await nextDueAt([...served.keys()]);
        const idle = next ? Math.min(this.opts.pollMs, Math.max(5, next.getTime() - Date.now())) : this.opts.pollMs;
        await waitForWork(idle, signal);
      } catch (err) {
        if (signal.aborted) break;
        log.error("workflow worker error", { worker: index, ...errorFields(err) });
        await waitForWork(this.opts.pollMs, signal);
      }
    }
  }

  /**
   * The next claimed run for a worker: from the runs claimed with the last batch, else from a new
   * batch claim sized to the idle workers (one claim at a time per executor; workers that arrive
   * while it is under way share its result).
   */
  private async take(): Promise<RunRow | null> {
    const queued = this.claimed.shift();
    if (queued) return queued;
    if (!this.claiming) {
      this.claiming = (async () => {
        const served = await this.servedFunctions();
        if (served.size === 0) return;
        const wanted = Math.max(1, this.opts.workers - this.driving);
        const runs = await claimRuns(this.opts.leaseMs, [...served.keys()], wanted, this.throttles(served));
        this.moreDue = runs.length === wanted;
        this.claimed.push(...runs);
      })().finally(() => {
        this.claiming = null;
      });
    }
    await this.claiming;
    return this.claimed.shift() ?? null;
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
    };
    if (!fn || fn.active !== "active") {
      await this.finish(run, state, { kind: "fail", error: { name: "FunctionNotFound", message: `Function ${run.functionId} is not registered.` } });
      return;
    }
    // A sleep, wait or invoke whose time came: its step resolves with the timeout outcome.
    if (run.wait) {
      const timeout = run.wait.kind === "invoke" ? { error: { name: "InngestInvokeTimeoutError", message: "Timed out waiting for the invoked function." } } : { data: null };
      state.steps[run.wait.stepId] = timeout;
      state.stack.push(run.wait.stepId);
      this.record(state, run.wait.stepId, run.wait.kind, run.wait.kind === "sleep" ? "completed" : "failed", run.wait.kind === "sleep" ? undefined : "timed out");
    }
    for (let calls = 0; calls < this.opts.maxCallsPerClaim; calls++) {
      const outcome = await this.withHeartbeat(run, state, () => this.step(fn, run, state));
      if (outcome.kind !== "continue") {
        await this.finish(run, state, outcome);
        return;
      }
      if (!(await this.save(run, state, { status: "running" }))) return; // lease lost or cancelled
      if (signal?.aborted) {
        await this.finish(run, state, { kind: "park", status: "queued", dueInMs: 0, wait: null });
        return;
      }
    }
    await this.finish(run, state, { kind: "park", status: "queued", dueInMs: 0, wait: null });
  }

  /**
   * Runs `work` (an SDK call) while keeping the run's lease alive, so a step that takes longer than
   * the lease is not taken over by another worker and run twice. A heartbeat that finds the lease
   * gone (cancelled, taken over) stops; the save after the call then fails its guard.
   */
  private async withHeartbeat<T>(run: RunRow, state: State, work: () => Promise<T>): Promise<T> {
    let beat: Promise<void> = Promise.resolve();
    const timer = setInterval(() => {
      beat = beat.then(async () => {
        const lease = await renewLease(run.id, state.lease, this.opts.leaseMs);
        if (lease) state.lease = lease;
        else clearInterval(timer);
      }).catch((err: unknown) => log.warn("workflow lease renewal failed", { runId: run.id, ...errorFields(err) }));
    }, Math.max(50, Math.floor(this.opts.leaseMs / 3)));
    try {
      return await work();
    } finally {
      clearInterval(timer);
      await beat;
    }
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
      return this.functionError(run, state, { name: "FetchError", message: `Calling ${fn.url} failed: ${err instanceof Error ? err.message : String(err)}` }, null, false);
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

  private functionError(run: RunRow, state: State, error: SerializedError, retryAfter: number | null, final: boolean): Outcome {
    this.record(state, "step", "function", "errored", error);
    state.attempt += 1;
    if (final || state.attempt >= run.maxAttempts) return { kind: "fail", error };
    return { kind: "park", status: "queued", dueInMs: retryAfter ?? this.backoff(state.attempt), wait: null };
  }

  private async applyOps(fn: FunctionRow, run: RunRow, state: State, ops: Op[], retryAfter: number | null): Promise<Outcome> {
    const planned: Op[] = [];
    let blocking: Op | null = null;
    for (const op of ops) {
      switch (op.op) {
        case "Step":
        case "StepRun":
          this.memo(state, op, { data: op.data ?? null });
          break;
        case "StepFailed":
          this.memo(state, op, { error: asError(op.error, "step failed") }, "failed");
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
          return { kind: "park", status: "queued", dueInMs: retryAfter ?? this.backoff(attempts), wait: null };
        }
        case "StepPlanned":
          if (!(op.id in state.steps) && !planned.some((p) => p.id === op.id)) planned.push(op);
          break;
        case "Sleep":
        case "WaitForEvent":
        case "InvokeFunction":
          if (!blocking && !(op.id in state.steps)) blocking = op;
          break;
        case "RunComplete":
          return { kind: "complete", output: op.data ?? null };
        default:
          return { kind: "fail", error: { name: "UnsupportedOperation", message: `The embedded executor does not support the ${op.op} step operation.` } };
      }
    }
    // Planned steps (parallel groups, sendEvent) run one at a time, each by its own call.
    if (planned.length > 0) {
      state.retryStep = planned[0]?.id ?? null;
      return { kind: "continue" };
    }
    if (blocking) return this.block(fn, run, state, blocking);
    return { kind: "continue" };
  }

  private async block(_fn: FunctionRow, run: RunRow, state: State, op: Op): Promise<Outcome> {
    const label = op.displayName ?? op.name ?? op.id;
    if (op.op === "Sleep") {
      const ms = msUntil(op.name ?? "") ?? 0;
      if (ms <= 0) {
        this.memo(state, op, { data: null });
        return { kind: "continue" };
      }
      this.record(state, op.id, label, "sleeping");
      return { kind: "park", status: "sleeping", dueInMs: ms, wait: { kind: "sleep", stepId: op.id } };
    }
    if (op.op === "WaitForEvent") {
      const timeout = typeof op.opts?.timeout === "string" ? (msUntil(op.opts.timeout) ?? DEFAULT_WAIT_MS) : DEFAULT_WAIT_MS;
      const expression = typeof op.opts?.if === "string" ? op.opts.if : null;
      this.record(state, op.id, label, "waiting");
      return { kind: "park", status: "waiting", dueInMs: timeout, wait: { kind: "event", stepId: op.id, event: op.name ?? "", expression } };
    }
    // InvokeFunction: start the child in the same transaction that parks the parent.
    const functionId = typeof op.opts?.function_id === "string" ? op.opts.function_id : "";
    const payload = (op.opts?.payload ?? {}) as { data?: Record<string, unknown>; v?: string };
    const timeout = typeof op.opts?.timeout === "string" ? (msUntil(op.opts.timeout) ?? FAR_FUTURE_MS) : FAR_FUTURE_MS;
    const db = await getDb();
    this.record(state, op.id, label, "waiting");
    const child = await db.transaction(async (tx) => {
      const created = await invokeFunction(tx, functionId, payload, run.id);
      if (!created) return null;
      const parked = await this.save(run, state, { status: "waiting", dueInMs: timeout, wait: { kind: "invoke", stepId: op.id, childRunId: created.id } }, tx);
      if (!parked) throw new Error("lease lost while invoking");
      return created;
    });
    if (!child) {
      this.memo(state, op, { error: { name: "Error", message: `No function ${functionId} to invoke.` } }, "failed");
      return { kind: "continue" };
    }
    return { kind: "parked" };
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
    state.history.push({ id, name, op: name, status, attempt, ...(error === undefined ? {} : { error }), at: new Date().toISOString() });
    if (state.history.length > HISTORY_LIMIT) state.history.splice(0, state.history.length - HISTORY_LIMIT);
  }

  private async call(fn: FunctionRow, run: RunRow, state: State, stepId: string, attempt: number): Promise<Response> {
    const body = {
      version: 2,
      event: run.event,
      events: run.events ?? [run.event],
      steps: state.steps,
      ctx: {
        run_id: run.id,
        attempt,
        max_attempts: run.maxAttempts,
        disable_immediate_execution: false,
        use_api: false,
        stack: { stack: state.stack, current: state.stack.length },
      },
    };
    const canonical = canonicalJson(body);
    // Always this executor's own endpoint: a URL stored with the function is never called.
    const url = new URL(this.opts.serveUrl);
    url.searchParams.set("fnId", fn.id);
    url.searchParams.set("stepId", stepId);
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      "X-Inngest-Server-Kind": this.opts.signingKey ? "cloud" : "dev",
      "X-Inngest-Req-Version": "2",
    };
    if (this.opts.signingKey) headers["X-Inngest-Signature"] = signBody(canonical, this.opts.signingKey);
    const request = new Request(url, { method: "POST", headers, body: canonical, signal: AbortSignal.timeout(this.opts.callTimeoutMs) });
    const handler = this.opts.transport === "auto" ? serveHandler(this.opts.serveUrl) : null;
    if (!handler) return fetch(request);
    // In-process: the same signed request, handed to the app's serve() handler.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.opts.callTimeoutMs} ms`)), this.opts.callTimeoutMs);
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
    next: { status: RunRow["status"]; dueInMs?: number; wait?: WfWait | null; output?: unknown; error?: unknown },
    tx?: Tx,
  ): Promise<boolean> {
    const db = tx ?? (await getDb());
    const terminal = next.status === "completed" || next.status === "failed";
    const [row] = await db
      .update(wfRuns)
      .set({
        steps: state.steps,
        stack: state.stack,
        stepAttempts: state.stepAttempts,
        history: state.history,
        attempt: state.attempt,
        retryStep: state.retryStep,
        status: next.status,
        wait: next.wait ?? null,
        dueAt: sql`now() + ${`${Math.max(0, Math.round(next.dueInMs ?? 0))} milliseconds`}::interval`,
        leaseUntil: next.status === "running" ? sql`now() + ${`${this.opts.leaseMs} milliseconds`}::interval` : null,
        ...(next.output !== undefined ? { output: next.output } : {}),
        ...(next.error !== undefined ? { error: next.error } : {}),
        ...(terminal ? { endedAt: sql`now()` } : {}),
      })
      .where(and(eq(wfRuns.id, run.id), eq(wfRuns.status, "running"), eq(wfRuns.leaseUntil, state.lease)))
      .returning({ leaseUntil: wfRuns.leaseUntil });
    if (!row) return false;
    if (row.leaseUntil) state.lease = row.leaseUntil;
    return true;
  }

  private async finish(run: RunRow, state: State, outcome: Exclude<Outcome, { kind: "continue" }>): Promise<void> {
    if (outcome.kind === "parked") {
      notifyWork();
      return;
    }
    if (outcome.kind === "park") {
      const saved = await this.save(run, state, { status: outcome.status, dueInMs: outcome.dueInMs, wait: outcome.wait });
      // A run of a concurrency key that stops executing lets the next one of that key start.
      if (saved && run.concurrencyLimit !== null) await wakeWorkers();
      return;
    }
    const db = await getDb();
    const end = (tx?: Tx) =>
      outcome.kind === "complete" ? this.save(run, state, { status: "completed", output: outcome.output ?? null }, tx) : this.save(run, state, { status: "failed", error: outcome.error }, tx);
    // One statement when no parent waits on this run; with one, the parent resumes in the same transaction.
    const saved = !run.parentRunId ? await end() : await db.transaction(async (tx) => {
      if (!(await end(tx))) return false;
      if (run.parentRunId) {
        const [parent] = await tx
          .select()
          .from(wfRuns)
          .where(and(eq(wfRuns.id, run.parentRunId), eq(wfRuns.status, "waiting"), sql`${wfRuns.wait}->>'childRunId' = ${run.id}`))
          .for("update");
        if (parent?.wait) await resumeWithStep(tx, parent, parent.wait.stepId, outcome.kind === "complete" ? { data: outcome.output ?? null } : { error: outcome.error });
      }
      return true;
    });
    if (!saved) return;
    if (outcome.kind === "fail") {
      log.warn("workflow run failed", { runId: run.id, functionId: run.functionId, error: outcome.error.message });
      // onFailure handlers are functions triggered by this event (never for a failure handler itself).
      if (run.event.name !== FAILED_EVENT) {
        await ingestEvents([{ name: FAILED_EVENT, data: { function_id: run.functionId, run_id: run.id, error: outcome.error, event: run.event } }]);
      }
    }
    if (run.concurrencyLimit !== null) await wakeWorkers();
    else if (run.parentRunId) notifyWork();
  }
}
