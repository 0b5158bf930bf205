import cluster, { type Worker } from "node:cluster";
import { log } from "@/lib/log";

/**
 * Cluster mode (`APP_PROCESSES` > 1, PostgreSQL only; server.ts): the primary forks the workers and
 * does nothing else — no database handle, no Next.js. Each worker is a whole server (HTTP, the
 * embedded executor, the outbox relay, the webhook dispatcher, the SMTP receiver), and node:cluster
 * shares the HTTP and SMTP ports between them. Nothing in a worker's memory is needed by another:
 * queues are claimed with `SKIP LOCKED`, limits and flow control are rows, wake-ups are NOTIFY (docs/ARCHITECTURE.md,
 * "Several processes").
 *
 * A worker that dies after it reported ready is replaced; one that dies before (a database that
 * cannot be reached, a port in use) stops the cluster with its exit code, so a broken
 * configuration fails once instead of restarting in a loop. SIGTERM or SIGINT stops every worker
 * (each shuts down as a single server does) and resolves with the exit code.
 */
export const READY_MESSAGE = "svc:ready";

export function runClusterPrimary(processes: number, workerEnv: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const live = new Set<Worker>();
    const ready = new WeakSet<Worker>();
    let stopping = false;
    let exitCode = 0;

    const stop = (reason: string) => {
      if (stopping) return;
      stopping = true;
      log.info("stopping the workers", { reason, workers: live.size });
      for (const w of live) w.process.kill("SIGTERM");
      if (live.size === 0) resolve(exitCode);
      // A worker gives itself 5 s to stop; do not wait on one that hangs longer.
      setTimeout(() => {
        for (const w of live) w.process.kill("SIGKILL");
      }, 8_000).unref();
    };

    const fork = () => {
      const worker = cluster.fork(workerEnv);
      live.add(worker);
      worker.on("message", (m: unknown) => {
        if (m === READY_MESSAGE) ready.add(worker);
      });
      worker.on("exit", (code, signal) => {
        live.delete(worker);
        if (stopping) {
          if (live.size === 0) resolve(exitCode);
        } else if (!ready.has(worker)) {
          log.error("a worker exited before it was ready; stopping the cluster", {
            pid: worker.process.pid,
            code,
            signal,
          });
          exitCode = code || 1;
          stop("worker failed to start");
        } else {
          log.warn("a worker exited; starting another", { pid: worker.process.pid, code, signal });
          fork();
        }
      });
    };

    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
    log.info("cluster primary started", { processes });
    for (let i = 0; i < processes; i++) fork();
  });
}
