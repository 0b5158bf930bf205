import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { projectRoot } from "@/lib/env";
import { TemplateError, type TemplateErrorCode } from "./errors";
import { sandboxRuntime } from "./runtime";
import {
  type EngineName,
  type RenderJob,
  type RenderReply,
  type WorkerData,
  type WorkerLimits,
  workerMain,
} from "./worker";

/**
 * The render workers and a fair scheduler in front of them.
 *
 * - Every customer tenant (`org:<id>`) has its own FIFO queue; a free worker takes the next job of
 *   the next tenant in round-robin order, so one organization's burst waits behind itself, not in
 *   front of everyone else. A tenant runs at most `tenantConcurrency` jobs at once and may have at
 *   most `tenantQueue` more waiting: beyond that its renders are refused with `rate_limited` (429,
 *   with a Retry-After estimate), never given a queue slot.
 * - The product's own mail (tenant `system`: sign-in links, invitations) has `systemWorkers`
 *   reserved workers no customer job ever runs on (it may also use an idle shared worker).
 * - Each tenant has a home worker (a hash of the tenant), where its warm context lives: a free
 *   worker first serves, in round-robin order, the tenants whose home it is, and only then takes
 *   another tenant's job (which then warms a second context for that tenant on it).
 * - The sandbox enforces the time limit itself (the job ends and the worker takes the next one); a
 *   worker that does not answer within `timeoutMs + hardGraceMs` is terminated and replaced, and
 *   only the job it was running fails.
 */
export interface PoolOptions {
  engine: EngineName;
  /** Shared workers (customers and, when idle, system mail). */
  workers: number;
  limits: WorkerLimits;
  /** Jobs waiting in all queues before further renders are refused (`rate_limited`). */
  maxQueue?: number;
  /** Renders one tenant may run at once (default: half the shared workers, at least 1). */
  tenantConcurrency?: number;
  /** Renders one tenant may have waiting beyond those (default 16). */
  tenantQueue?: number;
  /** Workers reserved for the `system` tenant (default 1; 0 shares the customers' workers). */
  systemWorkers?: number;
  hardGraceMs?: number;
}

export const SYSTEM_TENANT = "system";

export interface RenderOutput {
  html: string;
  text: string | null;
  /** True when the render had to load the runtime or evaluate the template module first. */
  cold: boolean;
}

interface Pending {
  job: RenderJob;
  resolve: (out: RenderOutput) => void;
  reject: (err: TemplateError) => void;
}

const CLIENT_CODES = new Set<TemplateErrorCode>([
  "import_not_allowed",
  "invalid_export",
  "render_error",
  "timeout",
  "memory_limit",
  "stack_overflow",
  "output_too_large",
]);

// Tools that compile TypeScript with esbuild's `keepNames` (tsx) call `__name` inside functions; the
// worker's script defines it so the serialized function runs the same under any compiler.
const PRELUDE = `"use strict";
var __name = (target) => target;
const { parentPort, workerData } = require("node:worker_threads");
const load = (url) => import(url);
`;

function resolveUrl(request: string): string {
  const require = createRequire(path.join(projectRoot, "package.json"));
  return pathToFileURL(require.resolve(request)).href;
}

class Slot {
  private worker: Worker | null = null;
  running: Pending | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: SandboxPool,
    private readonly data: () => Promise<WorkerData>,
    /** Reserved for the `system` tenant. */
    readonly reserved: boolean,
  ) {}

  private async spawn(): Promise<Worker> {
    const workerData = await this.data();
    const worker = new Worker(`${PRELUDE}(${workerMain.toString()})({ parentPort, workerData, load });`, {
      eval: true,
      workerData,
      // The sandbox's own limits bound the engine; these bound the worker's JavaScript heap. The
      // stack is larger than Node's 4 MiB so that QuickJS's own stack limit (in the WebAssembly
      // memory) always trips before the thread's native stack does: deep native recursion in the
      // engine (JSON.stringify of a 10^6-deep object) is then the template's `stack_overflow`.
      resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 16 },
    });
    worker.unref();
    worker.on("message", (reply: RenderReply) => this.settle(reply));
    worker.on("error", (err) => this.crashed(worker, `the render worker failed: ${err.message}`));
    worker.on("exit", (code) => this.crashed(worker, `the render worker exited (${code})`));
    return worker;
  }

  /** Runs one job (the slot is idle). */
  async run(next: Pending): Promise<void> {
    this.running = next;
    try {
      this.worker ??= await this.spawn();
    } catch (err) {
      this.finish(
        new TemplateError("sandbox_unavailable", `the template renderer could not start: ${(err as Error).message}`),
      );
      return;
    }
    if (this.running !== next) return;
    const { timeoutMs, coldTimeoutMs } = this.pool.options.limits;
    this.arm(timeoutMs + coldTimeoutMs + this.pool.hardGraceMs);
    // Keeps the process alive while a render is under way; an idle worker never does.
    this.worker.ref();
    this.worker.postMessage(next.job);
  }

  /** (Re)starts the hard deadline of the running job: past it the worker is replaced. */
  private arm(ms: number): void {
    const worker = this.worker;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      // The sandbox did not stop itself: replace the worker, fail only this job.
      if (this.worker === worker) this.worker = null;
      this.finish(
        new TemplateError("timeout", `the template ran longer than ${this.pool.options.limits.timeoutMs} ms`),
      );
      void worker?.terminate();
    }, ms);
    this.timer.unref();
  }

  private settle(reply: RenderReply): void {
    if (!this.running || reply.seq !== this.running.job.seq) return;
    if ("ready" in reply) {
      this.arm(this.pool.options.limits.timeoutMs + this.pool.hardGraceMs);
      return;
    }
    if (reply.ok) {
      this.finish(null, { html: reply.html, text: reply.text, cold: reply.cold });
    } else {
      const code = reply.code as TemplateErrorCode;
      this.finish(new TemplateError(CLIENT_CODES.has(code) ? code : "sandbox_unavailable", reply.message));
    }
  }

  private crashed(worker: Worker, message: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    if (this.running) this.finish(new TemplateError("sandbox_unavailable", message));
  }

  private finish(err: TemplateError | null, out?: RenderOutput): void {
    const p = this.running;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = null;
    this.worker?.unref();
    if (p) {
      if (err) p.reject(err);
      else if (out) p.resolve(out);
      this.pool.released(this, p);
    }
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (this.running) this.finish(new TemplateError("sandbox_unavailable", "the template renderer stopped"));
    if (worker) await worker.terminate();
  }
}

export class SandboxPool {
  private readonly shared: Slot[];
  private readonly reserved: Slot[];
  private seq = 0;
  readonly maxQueue: number;
  readonly hardGraceMs: number;
  readonly tenantConcurrency: number;
  readonly tenantQueue: number;
  private data: Promise<WorkerData> | null = null;
  /** Customer tenants with waiting jobs, in round-robin order (a Map keeps insertion order). */
  private readonly queues = new Map<string, Pending[]>();
  private readonly system: Pending[] = [];
  private readonly active = new Map<string, number>();
  private waiting = 0;
  private closed = false;

  constructor(readonly options: PoolOptions) {
    this.maxQueue = options.maxQueue ?? 1000;
    this.hardGraceMs = options.hardGraceMs ?? 2000;
    const workers = Math.max(1, options.workers);
    this.tenantConcurrency = Math.max(1, options.tenantConcurrency ?? Math.floor(workers / 2));
    this.tenantQueue = Math.max(0, options.tenantQueue ?? 16);
    const data = () => this.workerData();
    this.shared = Array.from({ length: workers }, () => new Slot(this, data, false));
    this.reserved = Array.from({ length: Math.max(0, options.systemWorkers ?? 1) }, () => new Slot(this, data, true));
  }

  private workerData(): Promise<WorkerData> {
    this.data ??= (async () => {
      const runtime = await sandboxRuntime();
      const engineUrl = resolveUrl(this.options.engine === "isolated-vm" ? "isolated-vm" : "quickjs-emscripten");
      return {
        engine: this.options.engine,
        engineUrl,
        renderUrl: resolveUrl("@react-email/render"),
        runtimeCode: runtime.code,
        limits: this.options.limits,
      };
    })().catch((err: unknown) => {
      this.data = null;
      throw err;
    });
    return this.data;
  }

  /** Seconds after which a refused tenant may expect room: its backlog at the time limit per render. */
  private retryAfter(backlog: number): number {
    const perRender = this.options.limits.timeoutMs / 1000;
    return Math.max(1, Math.ceil((backlog * perRender) / this.tenantConcurrency));
  }

  render(job: Omit<RenderJob, "seq">): Promise<RenderOutput> {
    return new Promise<RenderOutput>((resolve, reject) => {
      const p: Pending = { job: { ...job, seq: ++this.seq }, resolve, reject };
      if (this.closed) return reject(new TemplateError("sandbox_unavailable", "the template renderer stopped"));
      if (job.tenant === SYSTEM_TENANT) {
        if (this.system.length >= this.maxQueue) {
          return reject(new TemplateError("sandbox_unavailable", "the renderer of the service's own mail is busy"));
        }
        this.system.push(p);
      } else {
        const queue = this.queues.get(job.tenant);
        const waiting = queue?.length ?? 0;
        const running = this.active.get(job.tenant) ?? 0;
        // Its share: `tenantConcurrency` running plus `tenantQueue` waiting, whether or not a worker is free.
        if (running + waiting >= this.tenantConcurrency + this.tenantQueue) {
          return reject(
            TemplateError.rateLimited(
              `too many template renders in progress for this organization (${running} running, ${waiting} waiting); retry later`,
              this.retryAfter(running + waiting),
            ),
          );
        }
        if (this.waiting >= this.maxQueue) {
          return reject(
            TemplateError.rateLimited(
              "the template renderer is at capacity; retry later",
              this.retryAfter(this.waiting / Math.max(1, this.shared.length)),
            ),
          );
        }
        if (queue) queue.push(p);
        else this.queues.set(job.tenant, [p]);
        this.waiting++;
      }
      this.dispatch();
    });
  }

  /** A slot finished `p`: account for it and hand out the next jobs. */
  released(_slot: Slot, p: Pending): void {
    const tenant = p.job.tenant;
    if (tenant !== SYSTEM_TENANT) {
      const n = (this.active.get(tenant) ?? 1) - 1;
      if (n > 0) this.active.set(tenant, n);
      else this.active.delete(tenant);
    }
    this.dispatch();
  }

  /**
   * The next customer job for shared worker `index`, in round-robin order over the tenants under
   * their concurrency: a tenant whose home is this worker (or an isolated job, which needs no warm
   * context) first, else any.
   */
  private nextCustomer(index: number): Pending | undefined {
    let fallback: string | undefined;
    let chosen: string | undefined;
    for (const [tenant, queue] of this.queues) {
      if ((this.active.get(tenant) ?? 0) >= this.tenantConcurrency || queue.length === 0) continue;
      if (queue[0]?.job.isolated || hashTenant(tenant) % this.shared.length === index) {
        chosen = tenant;
        break;
      }
      fallback ??= tenant;
    }
    const tenant = chosen ?? fallback;
    if (tenant === undefined) return undefined;
    const queue = this.queues.get(tenant) as Pending[];
    const p = queue.shift() as Pending;
    // Served: the tenant goes to the back of the ring (or leaves it when it has nothing waiting).
    this.queues.delete(tenant);
    if (queue.length > 0) this.queues.set(tenant, queue);
    this.waiting--;
    this.active.set(tenant, (this.active.get(tenant) ?? 0) + 1);
    return p;
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const slot of this.reserved) {
      if (slot.running || this.system.length === 0) continue;
      void slot.run(this.system.shift() as Pending);
    }
    this.shared.forEach((slot, index) => {
      if (slot.running) return;
      const p = this.system.shift() ?? this.nextCustomer(index);
      if (p) void slot.run(p);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const stopped = new TemplateError("sandbox_unavailable", "the template renderer stopped");
    for (const queue of this.queues.values()) for (const p of queue) p.reject(stopped);
    for (const p of this.system.splice(0)) p.reject(stopped);
    this.queues.clear();
    this.waiting = 0;
    await Promise.all([...this.shared, ...this.reserved].map((s) => s.close()));
  }
}

function hashTenant(tenant: string): number {
  let h = 2166136261;
  for (let i = 0; i < tenant.length; i++) h = Math.imul(h ^ tenant.charCodeAt(i), 16777619);
  return h >>> 0;
}
