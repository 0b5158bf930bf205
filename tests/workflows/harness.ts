import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { Inngest, type InngestFunction } from "inngest";
import { serve } from "inngest/next";
import { getDb } from "@/db";
import { wfRuns } from "@/db/schema";
import { hashedSigningKey, serveOptions, workflowKeys } from "@/lib/workflows/config";
import { checkpointFetch } from "@/lib/workflows/executor/checkpoint";
import { syncApp } from "@/lib/workflows/executor";
import { Executor, type ExecutorOptions } from "@/lib/workflows/executor/executor";
import { acceptRegistration, handleEventApi, handleRegister } from "@/lib/workflows/executor/http";
import { registerServeHandler } from "@/lib/workflows/executor/registry";
import { signBody } from "@/lib/workflows/executor/signing";
import type { FnConfig } from "@/lib/workflows/executor/store";

/**
 * A real HTTP server on loopback that serves test functions through the SDK's own `serve()`
 * (the Next.js adapter the app uses) and the executor's event and register endpoints, as the app
 * does; plus the embedded executor driving them (in-process by default, like the app; over this
 * server's HTTP with `transport: "http"`).
 */
async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const body = chunks.length ? Buffer.concat(chunks) : undefined;
  return new Request(new URL(req.url ?? "/", origin), {
    method: req.method,
    headers,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
  });
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((v, k) => res.setHeader(k, v));
  res.end(Buffer.from(await response.arrayBuffer()));
}

export interface Harness {
  origin: string;
  /** The serve endpoint of this harness (what its executor calls and its functions register). */
  serveUrl: string;
  client: Inngest;
  executor: Executor;
  /** Registers (replaces) the functions the harness serves and syncs them. */
  serveFunctions(fns: readonly InngestFunction.Any[]): Promise<void>;
  /**
   * Serves another client's functions (the app's own) on this server and registers them through
   * the SDK's in-band sync (the client's base URL points elsewhere, so out-of-band cannot be used).
   */
  serveApp(client: Inngest, fns: readonly InngestFunction.Any[]): Promise<string[]>;
  /** A fresh executor over the same database (the old one must be stopped). */
  newExecutor(overrides?: Partial<ExecutorOptions>): Executor;
  close(): Promise<void>;
}

export async function startHarness(
  overrides: Partial<ExecutorOptions> = {},
  /** The client's id (random by default); processes that must serve the same functions share one. */
  clientId = `conformance-${randomUUID().slice(0, 8)}`,
): Promise<Harness> {
  let handlers: Record<string, (req: Request, ctx: unknown) => Promise<Response>> = {};
  let origin = "";
  const server: Server = createServer((req, res) => {
    void (async () => {
      const request = await toRequest(req, origin);
      const path = new URL(request.url).pathname;
      let response: Response;
      if (path === "/api/inngest") {
        const h = handlers[request.method];
        response = h ? await h(request, {}) : new Response("no handler", { status: 405 });
      } else if (path.startsWith("/e/")) {
        response = await handleEventApi(request, decodeURIComponent(path.slice(3)));
      } else if (path === "/fn/register") {
        response = await handleRegister(request, `${origin}/api/inngest`);
      } else {
        response = new Response("not found", { status: 404 });
      }
      await send(res, response);
    })().catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const keys = workflowKeys();
  const quiet = { info() {}, warn() {}, error() {}, debug() {} };
  const client = new Inngest({
    id: clientId,
    isDev: false,
    eventKey: keys.eventKey,
    signingKey: keys.signingKey,
    baseUrl: `${origin}/`,
    // As the app's client does: step checkpoints are answered in-process by the executor.
    fetch: checkpointFetch(`${origin}/`, `Bearer ${hashedSigningKey(keys.signingKey)}`),
    logger: quiet,
  });
  const serveUrl = `${origin}/api/inngest`;
  // As the app's route does: the executor hands its signed requests to this handler in-process
  // (ExecutorOptions.transport "http" posts them to the server above instead).
  registerServeHandler(serveUrl, (request) => {
    const post = handlers.POST;
    return post ? post(request, {}) : Promise.resolve(new Response("no handler", { status: 405 }));
  });
  const opts: ExecutorOptions = {
    signingKey: keys.signingKey,
    serveUrl,
    workers: 3,
    retryBaseMs: 40,
    pollMs: 50,
    leaseMs: 5_000,
    ...overrides,
  };
  const harness: Harness = {
    origin,
    serveUrl,
    client,
    executor: new Executor(opts),
    async serveFunctions(fns) {
      handlers = serve({ client, functions: fns, ...serveOptions(serveUrl) }) as unknown as typeof handlers;
      const res = await syncApp(serveUrl, keys.signingKey);
      if (!res.ok) throw new Error(`sync failed: ${res.status} ${await res.text()}`);
    },
    async serveApp(appClient, fns) {
      handlers = serve({ client: appClient, functions: fns, ...serveOptions(serveUrl) }) as unknown as typeof handlers;
      const url = serveUrl;
      const body = JSON.stringify({ url });
      const res = await fetch(url, {
        method: "PUT",
        headers: {
          "Content-Type": "application/json",
          "x-inngest-sync-kind": "in_band",
          "X-Inngest-Signature": signBody(body, keys.signingKey),
        },
        body,
      });
      if (!res.ok) throw new Error(`in-band sync failed: ${res.status} ${await res.text()}`);
      const synced = (await res.json()) as { app_id: string; url: string; functions: FnConfig[] };
      const accepted = await acceptRegistration(
        { url: synced.url, appName: synced.app_id, functions: synced.functions },
        serveUrl,
      );
      if ("refused" in accepted) throw new Error(accepted.refused);
      return synced.functions.map((f) => f.id);
    },
    newExecutor(more = {}) {
      harness.executor = new Executor({ ...opts, ...more });
      return harness.executor;
    },
    async close() {
      await harness.executor.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return harness;
}

export type Run = typeof wfRuns.$inferSelect;

/** Polls until a run of `functionId` satisfies `predicate`. */
export async function waitForRun(
  functionId: string,
  predicate: (run: Run) => boolean,
  timeoutMs = 15_000,
): Promise<Run> {
  const db = await getDb();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await db.select().from(wfRuns).where(eq(wfRuns.functionId, functionId));
    const hit = runs.find(predicate);
    if (hit) return hit;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for a run of ${functionId}; runs: ${JSON.stringify(runs.map((r) => ({ status: r.status, error: r.error, history: r.history })))}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function runsOf(functionId: string): Promise<Run[]> {
  const db = await getDb();
  return db.select().from(wfRuns).where(eq(wfRuns.functionId, functionId));
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
