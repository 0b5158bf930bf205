/**
 * Workflow benchmark: a three-step function run by the embedded executor through the SDK's real
 * `serve()` over HTTP. Sends BENCH_RUNS events (default 1,000) and reports runs completed per second
 * and p50/p99 latency from `send()` to the run's completion, on PGlite and on PostgreSQL.
 *
 *   npm run bench:workflows            # BENCH_RUNS=1000 WORKFLOW_WORKERS=4
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { backendEnv, postgresBackend, ROOT } from "./lib";

const RUNS = Number(process.env.BENCH_RUNS ?? 1000);

async function measure(): Promise<void> {
  const { inArray } = await import("drizzle-orm");
  const { getDb, closeDb } = await import("@/db");
  const { wfRuns } = await import("@/db/schema");
  const { startHarness } = await import("../tests/workflows/harness");
  const h = await startHarness({ workers: Number(process.env.WORKFLOW_WORKERS ?? 4), retryBaseMs: 1000, pollMs: 200 });
  const fn = h.client.createFunction({ id: "three-steps", triggers: [{ event: "bench/go" }] }, async ({ step, event }) => {
    const a = await step.run("one", () => (event.data as { i: number }).i);
    const b = await step.run("two", () => a * 2);
    return step.run("three", () => b + 1);
  });
  await h.serveFunctions([fn]);
  h.executor.start();

  const sent = new Map<string, number>();
  const started = performance.now();
  const t0 = Date.now();
  for (let i = 0; i < RUNS; i += 100) {
    const batch = Array.from({ length: Math.min(100, RUNS - i) }, (_, j) => ({ name: "bench/go", data: { i: i + j } }));
    const at = Date.now();
    const { ids } = await h.client.send(batch);
    for (const id of ids) sent.set(id, at);
  }
  const db = await getDb();
  for (;;) {
    const done = await db.select({ n: wfRuns.id }).from(wfRuns).where(inArray(wfRuns.status, ["completed", "failed"]));
    if (done.length >= RUNS) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  const runs = await db.select({ event: wfRuns.event, endedAt: wfRuns.endedAt, status: wfRuns.status }).from(wfRuns);
  const latencies = runs
    .map((r) => (r.endedAt?.getTime() ?? Date.now()) - (sent.get(r.event.id) ?? t0))
    .sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  const failed = runs.filter((r) => r.status !== "completed").length;
  console.log(
    `${(process.env.BENCH_BACKEND ?? "").padEnd(9)} ${RUNS} runs  ${(RUNS / seconds).toFixed(1).padStart(7)} runs/s  p50 ${String(pct(50)).padStart(6)} ms  p99 ${String(pct(99)).padStart(6)} ms  failed ${failed}`,
  );
  await h.close();
  await closeDb();
}

if (process.env.BENCH_BACKEND) {
  await measure();
} else {
  console.log(`workflow benchmark: three-step function, ${RUNS} runs, ${process.env.WORKFLOW_WORKERS ?? 4} workers`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-wf-"));
  const backends = [{ name: "pglite" as const }, ...[await postgresBackend()].filter((b) => b !== null)];
  for (const backend of backends) {
    const env: NodeJS.ProcessEnv = { ...backendEnv(backend, path.join(dataDir, backend.name)), NODE_ENV: "test", BENCH_BACKEND: backend.name };
    const r = spawnSync(process.execPath, ["--import", "tsx", "bench/workflows.ts"], { cwd: ROOT, env, stdio: "inherit" });
    if (r.status !== 0) process.exitCode = 1;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
