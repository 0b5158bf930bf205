/**
 * The render worker: a `worker_threads` thread that owns the sandbox engine, so a template that
 * spins until its deadline blocks a worker, never the server's event loop. `workerMain` is
 * serialized with `Function.prototype.toString` and evaluated as the worker's script (see
 * `pool.ts`): it may use only its parameter and the language itself, no imports and no closures.
 *
 * Isolation model: a stored template version renders in its tenant's context (an organization,
 * or `system` for the product's own mail), kept warm in an LRU (the runtime libraries take ~40 ms
 * to load into a fresh QuickJS context), recycled after `maxRendersPerContext` renders and thrown
 * away after any failed render. Any other source (a draft preview, a send's inline `react`) is an
 * `isolated` job: it renders in a throwaway context that is disposed right after, so code that no
 * one published never runs where a published version will. Every context is sealed before its
 * first template (sandbox/entry.ts): the host API is off the global object, a module id is defined
 * once, intrinsics, libraries and the global object are frozen. Nothing of the host is exposed.
 */

export type EngineName = "quickjs" | "isolated-vm";

export interface WorkerLimits {
  timeoutMs: number;
  /** Time allowed to load the runtime libraries into a fresh context. */
  coldTimeoutMs: number;
  memoryMb: number;
  maxOutputChars: number;
  /** QuickJS: largest JS stack, bytes (deep recursion fails with `stack_overflow`, the worker lives). */
  stackBytes: number;
  maxContexts: number;
  maxRendersPerContext: number;
}

export interface WorkerData {
  engine: EngineName;
  /** file: URLs of the engine package and of @react-email/render (for the text part). */
  engineUrl: string;
  renderUrl: string;
  runtimeCode: string;
  limits: WorkerLimits;
}

export interface RenderJob {
  seq: number;
  tenant: string;
  moduleId: string;
  moduleCode: string;
  propsJson: string;
  text: boolean;
  /** A source that is not a stored version: render it in a throwaway context. */
  isolated: boolean;
}

export type RenderReply =
  | { seq: number; ready: true }
  | { seq: number; ok: true; html: string; text: string | null; cold: boolean }
  | { seq: number; ok: false; code: string; message: string };

interface Port {
  on(event: "message", listener: (job: RenderJob) => void): void;
  postMessage(reply: RenderReply): void;
}

/** Tells the pool that the context is loaded, so its hard deadline becomes the render's own. */
type Ready = () => void;

export interface WorkerDeps {
  parentPort: Port;
  workerData: WorkerData;
  load: (url: string) => Promise<unknown>;
}

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return */
export function workerMain(deps: WorkerDeps): void {
  const { parentPort, workerData, load } = deps;
  const limits = workerData.limits;

  // A plain object, not a class: whatever compiles this function (tsx, Vitest, Next.js) must not
  // need helpers from outside it.
  type Failure = Error & { failure: true; code: string };
  const Failure = function (code: string, message: string): Failure {
    return Object.assign(new Error(message), { failure: true as const, code });
  } as unknown as new (
    code: string,
    message: string,
  ) => Failure;
  const isFailure = (err: unknown): err is Failure =>
    typeof err === "object" && err !== null && (err as { failure?: unknown }).failure === true;

  const clip = (s: string, n = 500) => (s.length > n ? `${s.slice(0, n)}…` : s);

  /** Maps an error that left the sandbox (its name and message) to a failure code. */
  const classify = (name: string, message: string): Failure => {
    if (name.startsWith("SvcError:")) {
      const code = name.slice("SvcError:".length);
      const known = ["import_not_allowed", "invalid_export", "output_too_large", "stack_overflow"];
      return new Failure(known.includes(code) ? code : "render_error", message);
    }
    // The engines' own errors: QuickJS (InternalError) and V8 under isolated-vm.
    if ((name === "InternalError" && message === "interrupted") || /^Script execution timed out\.?$/.test(message)) {
      return new Failure("timeout", `the template ran longer than ${limits.timeoutMs} ms`);
    }
    if (
      (name === "InternalError" && message === "out of memory") ||
      /^(Isolate was disposed during execution due to memory limit|Array buffer allocation failed)/.test(message)
    ) {
      return new Failure("memory_limit", `the template used more than ${limits.memoryMb} MiB of memory`);
    }
    if (
      (/^(InternalError|SyntaxError)$/.test(name) && message === "stack overflow") ||
      (name === "RangeError" && /^Maximum call stack size exceeded/.test(message))
    ) {
      return new Failure("stack_overflow", "the template recursed too deeply (stack overflow)");
    }
    const react = /Minified React error #(\d+)/.exec(message);
    if (react) {
      const hints: Record<string, string> = {
        "130":
          "an element type is invalid: a component is undefined (check the names you import from @react-email/components)",
        "152": "a component returned undefined; return null to render nothing",
        "31": "an object was rendered as a React child; render its fields instead",
        "426": "a component suspended: templates must be synchronous (no async components, no use())",
        "460": "a component suspended: templates must be synchronous (no async components, no use())",
      };
      return new Failure(
        "render_error",
        `React error #${react[1]}: ${hints[react[1] ?? ""] ?? "see https://react.dev/errors/" + react[1]}`,
      );
    }
    return new Failure("render_error", clip(name ? `${name}: ${message}` : message));
  };

  // Warm contexts per tenant, least recently used first (a Map keeps insertion order).
  const takeWarm = (contexts: Map<string, any>, tenant: string, live: (entry: any) => boolean): any => {
    const entry = contexts.get(tenant);
    if (!entry || !live(entry)) return undefined;
    contexts.delete(tenant);
    return entry;
  };
  const keepWarm = (contexts: Map<string, any>, tenant: string, entry: any, dispose: (entry: any) => void) => {
    contexts.set(tenant, entry);
    while (contexts.size > limits.maxContexts) {
      const [oldest, victim] = contexts.entries().next().value as [string, any];
      contexts.delete(oldest);
      dispose(victim);
    }
  };

  // ---------------------------------------------------------------- QuickJS (default engine)
  const quickjsEngine = (ns: any) => {
    let mod: any = null;
    const contexts = new Map<string, any>();

    // A context whose engine call died in the host (the host's own stack overflow, a WebAssembly
    // trap) may have left the instance's memory half-updated: such a context is dropped without
    // being disposed, and new contexts get a fresh WebAssembly instance. Other tenants' warm
    // contexts stay where they are (each has its own QuickJS runtime).
    const abandon = (entry: any) => {
      entry.abandoned = true;
      if (mod === entry.mod) mod = null;
    };
    const dispose = (entry: any) => {
      if (entry.abandoned) return;
      for (const handle of [entry.render, entry.define, entry.svc]) {
        try {
          handle?.dispose();
        } catch {
          /* ignored */
        }
      }
      try {
        entry.vm.dispose();
        entry.runtime.dispose();
      } catch {
        // A leaked handle or an aborted module: new contexts go to a new WebAssembly instance.
        abandon(entry);
      }
    };

    const dumpError = (vm: any, handle: any): Failure => {
      try {
        const e = vm.dump(handle);
        if (e && typeof e === "object") return classify(String(e.name ?? ""), String(e.message ?? ""));
        return classify("", String(e));
      } catch {
        // Reading the thrown value ran out of time or memory (a getter that spins, a huge object).
        return new Failure("render_error", "the template threw a value that could not be read");
      } finally {
        try {
          handle.dispose();
        } catch {
          /* ignored */
        }
      }
    };

    const create = async () => {
      mod ??= await ns.newQuickJSWASMModule();
      const runtime = mod.newRuntime();
      runtime.setMemoryLimit(limits.memoryMb * 1024 * 1024);
      runtime.setMaxStackSize(limits.stackBytes);
      const entry: any = {
        mod,
        runtime,
        vm: null,
        deadline: Date.now() + limits.coldTimeoutMs,
        modules: new Set<string>(),
        renders: 0,
      };
      runtime.setInterruptHandler(() => Date.now() > entry.deadline);
      entry.vm = runtime.newContext();
      const r = entry.vm.evalCode(workerData.runtimeCode, "svc-runtime.js");
      if (r.error) {
        const failure = dumpError(entry.vm, r.error);
        dispose(entry);
        throw new Failure("sandbox_unavailable", `the sandbox runtime did not load: ${failure.message}`);
      }
      r.value.dispose();
      entry.svc = entry.vm.getProp(entry.vm.global, "__svc");
      entry.define = entry.vm.getProp(entry.svc, "define");
      entry.render = entry.vm.getProp(entry.svc, "render");
      // Takes the API off the global object and freezes the context, before any template runs.
      const seal = entry.vm.getProp(entry.svc, "seal");
      const sealed = entry.vm.callFunction(seal, entry.svc);
      seal.dispose();
      if (sealed.error) {
        const failure = dumpError(entry.vm, sealed.error);
        dispose(entry);
        throw new Failure("sandbox_unavailable", `the sandbox runtime did not seal: ${failure.message}`);
      }
      sealed.value.dispose();
      return entry;
    };

    const forget = (job: RenderJob, entry: any) => {
      if (!job.isolated && contexts.get(job.tenant) === entry) contexts.delete(job.tenant);
    };

    return async (job: RenderJob, ready: Ready): Promise<{ html: string; cold: boolean }> => {
      let entry = job.isolated ? undefined : takeWarm(contexts, job.tenant, () => true);
      let cold = !entry;
      entry ??= await create();
      if (!job.isolated) keepWarm(contexts, job.tenant, entry, dispose);
      ready();
      const vm = entry.vm;
      const fail = (failure: Failure) => {
        forget(job, entry);
        dispose(entry);
        return failure;
      };
      try {
        entry.deadline = Date.now() + limits.timeoutMs;
        if (!entry.modules.has(job.moduleId)) {
          // The module body becomes a function the sandbox's define() calls once; the id is the host's.
          const r = vm.evalCode(`(function (module, exports, require) {\n${job.moduleCode}\n})`, "template.js");
          if (r.error) throw fail(dumpError(vm, r.error));
          const id = vm.newString(job.moduleId);
          let d: any;
          try {
            d = vm.callFunction(entry.define, entry.svc, id, r.value);
          } finally {
            id.dispose();
            r.value.dispose();
          }
          if (d.error) throw fail(dumpError(vm, d.error));
          d.value.dispose();
          entry.modules.add(job.moduleId);
          cold = true;
        }
        const id = vm.newString(job.moduleId);
        const props = vm.newString(job.propsJson);
        const max = vm.newNumber(limits.maxOutputChars);
        let r: any;
        try {
          r = vm.callFunction(entry.render, entry.svc, id, props, max);
        } finally {
          id.dispose();
          props.dispose();
          max.dispose();
        }
        if (r.error) throw fail(dumpError(vm, r.error));
        const html = vm.typeof(r.value) === "string" ? vm.getString(r.value) : null;
        r.value.dispose();
        if (html === null) throw fail(new Failure("render_error", "the template did not render to a string"));
        entry.renders += 1;
        if (job.isolated || entry.renders >= limits.maxRendersPerContext) {
          forget(job, entry);
          dispose(entry);
        }
        return { html, cold };
      } catch (err) {
        if (isFailure(err)) throw err;
        // Not a JavaScript error of the template: the engine call died in the host. Only this
        // context goes (never disposed: its memory may be half-updated); other tenants keep theirs.
        forget(job, entry);
        abandon(entry);
        const e = err as { name?: string; message?: string };
        if (e?.name === "RangeError" && /^Maximum call stack size exceeded/.test(String(e.message))) {
          throw new Failure("stack_overflow", "the template recursed too deeply (stack overflow)");
        }
        throw new Failure(
          "sandbox_unavailable",
          `the sandbox failed: ${clip(String((err as Error)?.message ?? err), 200)}`,
        );
      }
    };
  };

  // ---------------------------------------------------------------- isolated-vm (optional engine)
  const isolatedVmEngine = (ns: any) => {
    const ivm = ns.default ?? ns;
    const contexts = new Map<string, any>();
    const dispose = (entry: any) => {
      try {
        entry.isolate.dispose();
      } catch {
        /* already disposed (memory limit) */
      }
    };
    const create = () => {
      const isolate = new ivm.Isolate({ memoryLimit: Math.max(8, limits.memoryMb) });
      const context = isolate.createContextSync();
      try {
        context.evalSync(workerData.runtimeCode, { filename: "svc-runtime.js", timeout: limits.coldTimeoutMs });
      } catch (err) {
        isolate.dispose();
        throw new Failure("sandbox_unavailable", `the sandbox runtime did not load: ${String((err as Error).message)}`);
      }
      const render = context.evalSync("__svc.render.bind(__svc)", { reference: true });
      const define = context.evalSync("__svc.define.bind(__svc)", { reference: true });
      context.evalSync("__svc.seal()", { timeout: limits.coldTimeoutMs });
      return { isolate, context, render, define, modules: new Set<string>(), renders: 0 };
    };
    return (job: RenderJob, ready: Ready): Promise<{ html: string; cold: boolean }> => {
      let entry = job.isolated ? undefined : takeWarm(contexts, job.tenant, (e) => !e.isolate.isDisposed);
      let cold = !entry;
      entry ??= create();
      if (!job.isolated) keepWarm(contexts, job.tenant, entry, dispose);
      ready();
      try {
        const started = Date.now();
        if (!entry.modules.has(job.moduleId)) {
          const factory = entry.context.evalSync(`(function (module, exports, require) {\n${job.moduleCode}\n})`, {
            filename: "template.js",
            timeout: limits.timeoutMs,
            reference: true,
          });
          entry.define.applySync(undefined, [job.moduleId, factory.derefInto()], { timeout: limits.timeoutMs });
          entry.modules.add(job.moduleId);
          cold = true;
        }
        const left = Math.max(1, limits.timeoutMs - (Date.now() - started));
        const html = entry.render.applySync(undefined, [job.moduleId, job.propsJson, limits.maxOutputChars], {
          timeout: left,
        });
        if (typeof html !== "string") throw new Failure("render_error", "the template did not render to a string");
        entry.renders += 1;
        if (job.isolated || entry.renders >= limits.maxRendersPerContext) {
          if (!job.isolated) contexts.delete(job.tenant);
          dispose(entry);
        }
        return Promise.resolve({ html, cold });
      } catch (err) {
        if (!job.isolated && contexts.get(job.tenant) === entry) contexts.delete(job.tenant);
        const disposedForMemory = entry.isolate.isDisposed;
        dispose(entry);
        if (isFailure(err)) throw err;
        const e = err as { name?: string; message?: string };
        if (disposedForMemory)
          throw new Failure("memory_limit", `the template used more than ${limits.memoryMb} MiB of memory`);
        throw classify(String(e?.name ?? ""), String(e?.message ?? err));
      }
    };
  };

  let engine: Promise<(job: RenderJob, ready: Ready) => Promise<{ html: string; cold: boolean }>> | null = null;
  let toPlainText: Promise<(html: string) => string> | null = null;
  const getEngine = () => {
    engine ??= load(workerData.engineUrl).then((ns: any) =>
      workerData.engine === "isolated-vm" ? isolatedVmEngine(ns) : quickjsEngine(ns),
    );
    return engine;
  };
  const getText = () => {
    toPlainText ??= load(workerData.renderUrl).then(
      (ns: any) => (ns.toPlainText ?? ns.default?.toPlainText) as (html: string) => string,
    );
    return toPlainText;
  };

  parentPort.on("message", (job: RenderJob) => {
    void (async () => {
      try {
        const run = await getEngine();
        const { html, cold } = await run(job, () => parentPort.postMessage({ seq: job.seq, ready: true }));
        let text: string | null = null;
        if (job.text) {
          try {
            text = (await getText())(html);
          } catch (err) {
            throw new Failure(
              "render_error",
              `the text part could not be derived: ${clip(String((err as Error)?.message ?? err), 200)}`,
            );
          }
        }
        parentPort.postMessage({ seq: job.seq, ok: true, html, text, cold });
      } catch (err) {
        const failure = isFailure(err)
          ? err
          : new Failure("sandbox_unavailable", clip(String((err as Error)?.message ?? err), 300));
        parentPort.postMessage({ seq: job.seq, ok: false, code: failure.code, message: failure.message });
      }
    })();
  });
}
