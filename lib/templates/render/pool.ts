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
 * The render workers. Each job goes to the worker that owns its tenant (so a tenant's warm context
 * lives in one place), one job per worker at a time. The sandbox enforces the time limit itself; a
 * worker that does not answer within `timeoutMs + hardGraceMs` is terminated and replaced, and only
 * the job it was running fails.
 */
export interface PoolOptions {
  engine: EngineName;
  workers: number;
  limits: WorkerLimits;
  /** Jobs waiting per worker before renders are refused as `sandbox_unavailable`. */
  maxQueue?: number;
  hardGraceMs?: number;
}

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
  private running: Pending | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly queue: Pending[] = [];

  constructor(
    private readonly pool: SandboxPool,
    private readonly data: () => Promise<WorkerData>,
  ) {}

  get load(): number {
    return this.queue.length + (this.running ? 1 : 0);
  }

  submit(p: Pending): void {
    if (this.queue.length >= this.pool.maxQueue) {
      p.reject(new TemplateError("sandbox_unavailable", "the template renderer is busy; try again"));
      return;
    }
    this.queue.push(p);
    void this.pump();
  }

  private async spawn(): Promise<Worker> {
    const workerData = await this.data();
    const worker = new Worker(`${PRELUDE}(${workerMain.toString()})({ parentPort, workerData, load });`, {
      eval: true,
      workerData,
      // The sandbox's own limits bound the engine; these bound the worker's JavaScript heap.
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    worker.unref();
    worker.on("message", (reply: RenderReply) => this.settle(reply));
    worker.on("error", (err) => this.crashed(worker, `the render worker failed: ${err.message}`));
    worker.on("exit", (code) => this.crashed(worker, `the render worker exited (${code})`));
    return worker;
  }

  private async pump(): Promise<void> {
    if (this.running || this.queue.length === 0) return;
    const next = this.queue.shift();
    if (!next) return;
    this.running = next;
    try {
      this.worker ??= await this.spawn();
    } catch (err) {
      this.running = null;
      next.reject(
        new TemplateError("sandbox_unavailable", `the template renderer could not start: ${(err as Error).message}`),
      );
      void this.pump();
      return;
    }
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
    if (this.queue.length === 0) this.worker?.unref();
    if (p) {
      if (err) p.reject(err);
      else if (out) p.resolve(out);
    }
    void this.pump();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    for (const p of this.queue.splice(0))
      p.reject(new TemplateError("sandbox_unavailable", "the template renderer stopped"));
    if (worker) await worker.terminate();
  }
}

export class SandboxPool {
  private readonly slots: Slot[];
  private seq = 0;
  readonly maxQueue: number;
  readonly hardGraceMs: number;
  private data: Promise<WorkerData> | null = null;

  constructor(readonly options: PoolOptions) {
    this.maxQueue = options.maxQueue ?? 1000;
    this.hardGraceMs = options.hardGraceMs ?? 2000;
    this.slots = Array.from({ length: Math.max(1, options.workers) }, () => new Slot(this, () => this.workerData()));
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

  render(job: Omit<RenderJob, "seq">): Promise<RenderOutput> {
    const slot = this.slots[hashTenant(job.tenant) % this.slots.length] ?? this.slots[0];
    return new Promise<RenderOutput>((resolve, reject) => {
      if (!slot) return reject(new TemplateError("sandbox_unavailable", "no render worker"));
      slot.submit({ job: { ...job, seq: ++this.seq }, resolve, reject });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.close()));
  }
}

function hashTenant(tenant: string): number {
  let h = 2166136261;
  for (let i = 0; i < tenant.length; i++) h = Math.imul(h ^ tenant.charCodeAt(i), 16777619);
  return h >>> 0;
}
