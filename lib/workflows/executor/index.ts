import { getDbHandle } from "@/db";
import { env, inngestHosted } from "@/lib/env";
import { log } from "@/lib/log";
import { workflowKeys } from "@/lib/workflows/config";
import { Executor } from "./executor";
import { signBody } from "./signing";
import { recoverOrphanedRuns } from "./store";

export { Executor } from "./executor";
export { ingestEvents, registerFunctions } from "./store";

const KEY = Symbol.for("svc.workflows.executor");
type Holder = { [KEY]?: Executor };

/**
 * The SDK's out-of-band sync, signed: `PUT` on the serve endpoint with `X-Inngest-Signature` over
 * the empty body (the endpoint refuses unsigned syncs), after which the SDK registers its
 * functions with the executor at the serve URL fixed in its configuration.
 */
export async function syncApp(serveUrl: string, signingKey: string): Promise<Response> {
  return fetch(serveUrl, { method: "PUT", headers: { "X-Inngest-Signature": signBody("", signingKey) } });
}

/**
 * Starts this process's embedded executor (server.ts does, after the HTTP server listens) and
 * syncs the app's functions through the same `PUT` the SDK answers in production. Null when
 * workflows run on Inngest.
 */
export async function startEmbeddedExecutor(serveUrl: string): Promise<Executor | null> {
  if (inngestHosted()) return null;
  const holder = globalThis as Holder;
  const { signingKey } = workflowKeys();
  holder[KEY] ??= new Executor({
    signingKey,
    serveUrl,
    workers: env.WORKFLOW_WORKERS,
    retryBaseMs: env.WORKFLOW_RETRY_BASE_MS,
  });
  const executor = holder[KEY];
  if ((await getDbHandle()).kind === "pglite") {
    const recovered = await recoverOrphanedRuns();
    if (recovered > 0) log.info("workflow runs recovered after an unclean stop", { recovered });
  }
  const sync = await syncApp(serveUrl, signingKey);
  if (!sync.ok) throw new Error(`Syncing functions with ${serveUrl} failed: ${sync.status} ${await sync.text()}`);
  executor.start();
  return executor;
}

export async function stopEmbeddedExecutor(): Promise<void> {
  await (globalThis as Holder)[KEY]?.stop();
}
