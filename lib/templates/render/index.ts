import { env } from "@/lib/env";
import { compileTemplate, compileTemplateFile } from "./compile";
import { TemplateError } from "./errors";
import { jsonBytes, MAX_OUTPUT_CHARS, MAX_PROPS_BYTES } from "./limits";
import { type PoolOptions, SandboxPool } from "./pool";
import type { EngineName, WorkerLimits } from "./worker";

/**
 * The sandboxed react-email renderer (no HTTP, no next/*). A source is compiled by esbuild (imports
 * limited to react and @react-email/components), evaluated in an isolated engine (QuickJS by
 * default) inside a worker thread, and rendered with the given props under time, memory and output
 * limits. Every failure the caller caused is a `TemplateError` with a code and a message fit for a
 * 400; the process stays healthy whatever the source does.
 */
export { TemplateError, type TemplateErrorCode } from "./errors";
export { compileTemplate, ALLOWED_IMPORTS, type CompiledTemplate } from "./compile";
// Variable schemas (ajv) and subject templates: `./variables` and `./subject`, imported where needed
// (ajv takes a tenth of a second to load, which the product's own mail does not need).
export { MAX_SOURCE_CHARS, MAX_PROPS_BYTES, MAX_VARIABLES_BYTES, MAX_OUTPUT_CHARS } from "./limits";

export interface RenderRequest {
  /** Whose sandbox context runs it: `org:<id>` for customers, `system` for the product's own mail. */
  tenant: string;
  /** react-email TSX source whose default export is the email component. */
  source: string;
  /** The component's props (JSON, at most 32 KiB serialized). */
  props?: Record<string, unknown>;
  /** Also derive the plain-text part (react-email's `toPlainText`). Default true. */
  text?: boolean;
  /** The request field the source and props came from, for error `param`s (e.g. `react`). */
  param?: string;
  /**
   * True for a stored (published) template version: it renders in the tenant's warm context. Any
   * other source (a draft preview, a send's inline `react`) renders in a throwaway context, so code
   * no one published never runs where a published version will.
   */
  stored?: boolean;
}

export interface RenderResult {
  html: string;
  text: string | null;
  /** True when the sandbox had to load its runtime or evaluate the module first. */
  cold: boolean;
}

export function defaultLimits(): WorkerLimits {
  return {
    timeoutMs: env.TEMPLATE_RENDER_TIMEOUT_MS,
    coldTimeoutMs: 15_000,
    memoryMb: env.TEMPLATE_RENDER_MEMORY_MB,
    maxOutputChars: MAX_OUTPUT_CHARS,
    stackBytes: 512 * 1024,
    maxContexts: 32,
    maxRendersPerContext: 10_000,
  };
}

/** True when this process runs with `--no-node-snapshot` (isolated-vm crashes Node 20 without it). */
export function nodeSnapshotDisabled(): boolean {
  return (
    process.execArgv.includes("--no-node-snapshot") ||
    (env.NODE_OPTIONS ?? "").split(/\s+/).includes("--no-node-snapshot")
  );
}

export function createRenderer(
  options: Omit<Partial<PoolOptions>, "limits"> & { limits?: Partial<WorkerLimits> } = {},
): SandboxPool {
  const engine: EngineName = options.engine ?? env.TEMPLATE_SANDBOX;
  if (engine === "isolated-vm" && !nodeSnapshotDisabled()) {
    throw new Error(
      "TEMPLATE_SANDBOX=isolated-vm needs Node started with --no-node-snapshot (NODE_OPTIONS=--no-node-snapshot)",
    );
  }
  return new SandboxPool({
    ...options,
    engine,
    workers: options.workers ?? env.TEMPLATE_RENDER_WORKERS,
    tenantConcurrency: options.tenantConcurrency ?? env.TEMPLATE_RENDER_TENANT_CONCURRENCY,
    tenantQueue: options.tenantQueue ?? env.TEMPLATE_RENDER_TENANT_QUEUE,
    systemWorkers: options.systemWorkers ?? env.TEMPLATE_RENDER_SYSTEM_WORKERS,
    limits: { ...defaultLimits(), ...options.limits },
  });
}

// One renderer per process: server.ts (tsx) and the Next.js bundles load this module separately.
const holder = globalThis as typeof globalThis & { __svcTemplateRenderer?: SandboxPool };

export function renderer(): SandboxPool {
  holder.__svcTemplateRenderer ??= createRenderer();
  return holder.__svcTemplateRenderer;
}

export async function closeRenderer(): Promise<void> {
  const pool = holder.__svcTemplateRenderer;
  holder.__svcTemplateRenderer = undefined;
  await pool?.close();
}

function at(param: string | undefined, field: string): string | null {
  return param ? `${param}.${field}` : null;
}

/** Compiles (cached by source hash) and renders a react-email source in the sandbox. */
export async function renderReact(req: RenderRequest, pool: SandboxPool = renderer()): Promise<RenderResult> {
  const props = req.props ?? {};
  if (typeof props !== "object" || props === null || Array.isArray(props)) {
    throw new TemplateError("render_error", "props must be a JSON object", at(req.param, "props"));
  }
  let propsJson: string;
  try {
    propsJson = JSON.stringify(props);
  } catch {
    throw new TemplateError("render_error", "props must be JSON", at(req.param, "props"));
  }
  if (jsonBytes(props) > MAX_PROPS_BYTES) {
    throw new TemplateError(
      "props_too_large",
      `props are larger than ${MAX_PROPS_BYTES / 1024} KiB serialized`,
      at(req.param, "props"),
    );
  }
  let compiled;
  try {
    compiled = await compileTemplate(req.source);
  } catch (err) {
    throw err instanceof TemplateError ? err.withParam(at(req.param, "source")) : err;
  }
  try {
    return await pool.render({
      tenant: req.tenant,
      moduleId: compiled.id,
      moduleCode: compiled.code,
      propsJson,
      text: req.text ?? true,
      isolated: req.stored !== true,
    });
  } catch (err) {
    throw err instanceof TemplateError && err.isClientError ? err.withParam(at(req.param, "source")) : err;
  }
}

/**
 * Renders one of the product's own emails (a file in `emails/`) through the same sandbox, in the
 * `system` context, which no customer template ever shares.
 */
export async function renderEmailFile(
  file: string,
  root: string,
  props: Record<string, unknown>,
  pool: SandboxPool = renderer(),
): Promise<RenderResult> {
  const compiled = await compileTemplateFile(file, root);
  return pool.render({
    tenant: "system",
    moduleId: compiled.id,
    moduleCode: compiled.code,
    propsJson: JSON.stringify(props),
    text: true,
    isolated: false,
  });
}
