import { getDbHandle } from "@/db";
import { env, inngestHosted } from "@/lib/env";
import { log } from "@/lib/log";
import { workflowKeys } from "@/lib/workflows/config";
import { Executor } from "./executor";
import { recoverOrphanedRuns } from "./store";

export { Executor } from "./executor";
export { ingestEvents, registerFunctions } from "./store";

const KEY = Symbol.for("svc.workflows.executor");
type Holder = { [KEY]?: Executor };

/**
 * Starts this process's embedded executor (server.ts does, after the HTTP server listens) and
 * syncs the app's functions through the same `PUT` the SDK answers in production. Null when
 * workflows run on Inngest.
 */
export async function startEmbeddedExecutor(serveUrl: string): Promise<Executor | null> {
  if (inngestHosted()) return null;
  const holder = globalThis as Holder;
  holder[KEY] ??= new Executor({ signingKey: workflowKeys().signingKey, workers: env.WORKFLOW_WORKERS, retryBaseMs: env.WORKFLOW_RETRY_BASE_MS });
  const executor = holder[KEY];
  if ((await getDbHandle()).kind === "pglite") {
    const recovered = await recoverOrphanedRuns();
    if (recovered > 0) log.info("workflow runs recovered after an unclean stop", { recovered });
  }
  const sync = await fetch(serveUrl, { method: "PUT" });
  if (!sync.ok) throw new Error(`Syncing functions with ${serveUrl} failed: ${sync.status} ${await sync.text()}`);
  executor.start();
  return executor;
}

export async function stopEmbeddedExecutor(): Promise<void> {
  await (globalThis as Holder)[KEY]?.stop();
}
