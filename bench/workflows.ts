/**
 * Workflow benchmark: a three-step function run by the embedded executor through the SDK's real
 * `serve()`. Sends BENCH_RUNS events (default 1,000) and reports runs completed per second and
 * p50/p99 latency from `send()` to the run's completion, on PGlite and on PostgreSQL, for each of
 * BENCH_TRANSPORTS: `in-process` (the default executor: serve() handed the signed request in this
 * process, steps checkpointed), `no-checkpoint` (the same with the SDK's checkpointing off: one
 * call per step) and `http` (calls over loopback HTTP, checkpointing on).
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
  // As the server does at start (server.ts): the SDK enumerates process.env on every call.
  const { snapshotProcessEnv } = await import("@/lib/runtime/process-env");
  snapshotProcessEnv();
  const { count, inArray } = await import("drizzle-orm");
  const { getDb, closeDb } = await import("@/db");
  const { wfRuns } = await import("@/db/schema");
  const { startHarness } = await import("../tests/workflows/harness");
  const transport = process.env.BENCH_TRANSPORT === "http" ? "http" : "auto";
  // `no-checkpoint`: in-process, with the SDK's checkpointing off (one call per step, as before it).
  const checkpointing = process.env.BENCH_TRANSPORT !== "no-checkpoint";
  const h = await startHarness({
    workers: Number(process.env.WORKFLOW_WORKERS ?? 4),
    retryBaseMs: 1000,
    pollMs: 200,
    transport,
    checkpointing,
  });
  const fn = h.client.createFunction(
    { id: "three-steps", triggers: [{ event: "bench/go" }] },
    async ({ step, event }) => {
      const a = await step.run("one", () => (event.data as { i: number }).i);
      const b = await step.run("two", () => a * 2);
      return step.run("three", () => b + 1);
    },
  );
  await h.serveFunctions([fn]);
  h.executor.start();

  const profile = await startProfile();
  const sent = new Map<string, number>();
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  for (let i = 0; i < RUNS; i += 100) {
    const batch = Array.from({ length: Math.min(100, RUNS - i) }, (_, j) => ({ name: "bench/go", data: { i: i + j } }));
    const at = Date.now();
    const { ids } = await h.client.send(batch);
    for (const id of ids) sent.set(id, at);
  }
  const db = await getDb();
  for (;;) {
    const [done] = await db
      .select({ n: count() })
      .from(wfRuns)
      .where(inArray(wfRuns.status, ["completed", "failed"]));
    if ((done?.n ?? 0) >= RUNS) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await profile?.stop();
  const runs = await db.select({ event: wfRuns.event, endedAt: wfRuns.endedAt, status: wfRuns.status }).from(wfRuns);
  const latencies = runs
    .map((r) => (r.endedAt?.getTime() ?? Date.now()) - (sent.get(r.event.id) ?? t0))
    .sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  const failed = runs.filter((r) => r.status !== "completed").length;
  console.log(
    `${(process.env.BENCH_BACKEND ?? "").padEnd(9)} ${(transport === "http" ? "http" : checkpointing ? "in-process" : "no-ckpt").padEnd(10)} ${RUNS} runs  ${(RUNS / seconds).toFixed(1).padStart(7)} runs/s  p50 ${String(pct(50)).padStart(6)} ms  p99 ${String(pct(99)).padStart(6)} ms  failed ${failed}  process CPU ${((cpu.user + cpu.system) / 1000 / RUNS).toFixed(2)} ms/run`,
  );
  await h.close();
  await floor(RUNS, Number(process.env.WORKFLOW_WORKERS ?? 4));
  await closeDb();
}

/**
 * BENCH_CPU_PROF=<dir>: a CPU profile of this process covering the measured runs only (not the
 * start, the migrations or the floor), written to <dir>/workflows-<backend>-<transport>.cpuprofile.
 */
async function startProfile(): Promise<{ stop(): Promise<void> } | null> {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return null;
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 500 });
  await session.post("Profiler.start");
  return {
    async stop() {
      const { profile } = await session.post("Profiler.stop");
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(
        path.join(
          dir,
          `workflows-${process.env.BENCH_BACKEND}-${process.env.BENCH_TRANSPORT ?? "in-process"}.cpuprofile`,
        ),
        JSON.stringify(profile),
      );
      session.disconnect();
    },
  };
}

/**
 * The database floor beside it: what a run must write, without the SDK or the executor — one
 * INSERT and four single-row UPDATEs of a row of the same shape (one per SDK call of a three-step
 * run), by as many concurrent loops as workers.
 */
async function floor(runs: number, loops: number): Promise<void> {
  const { sql } = await import("drizzle-orm");
  const { getDb } = await import("@/db");
  const db = await getDb();
  await db.execute(sql`drop table if exists bench_floor`);
  await db.execute(
    sql`create table bench_floor (id int primary key, status text, steps jsonb, history jsonb, due_at timestamptz default now())`,
  );
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: loops }, async () => {
      for (let i = next++; i < runs; i = next++) {
        await db.execute(sql`insert into bench_floor (id, status, steps, history) values (${i}, 'queued', '{}', '[]')`);
        for (let step = 1; step <= 4; step++) {
          await db.execute(
            sql`update bench_floor set status = 'running', steps = steps || ${JSON.stringify({ [`s${step}`]: { data: step } })}::jsonb, history = history || '[{"ok":true}]'::jsonb, due_at = now() where id = ${i}`,
          );
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await db.execute(sql`drop table bench_floor`);
  console.log(
    `${(process.env.BENCH_BACKEND ?? "").padEnd(9)} ${"floor".padEnd(10)} ${runs} runs  ${(runs / seconds).toFixed(1).padStart(7)} runs/s  (the run's rows alone: 1 INSERT + 4 UPDATEs, ${loops} loops)`,
  );
}

if (process.env.BENCH_BACKEND) {
  await measure();
} else {
  console.log(`workflow benchmark: three-step function, ${RUNS} runs, ${process.env.WORKFLOW_WORKERS ?? 4} workers`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-wf-"));
  const transports = (process.env.BENCH_TRANSPORTS ?? "in-process,no-checkpoint,http").split(",");
  for (const name of ["pglite", "postgres"]) {
    for (const transport of transports) {
      // A fresh database for every measurement (postgresBackend recreates it).
      const backend = name === "pglite" ? { name: "pglite" as const } : await postgresBackend();
      if (!backend) continue;
      const env: NodeJS.ProcessEnv = {
        ...backendEnv(backend, path.join(dataDir, `${backend.name}-${transport}`)),
        NODE_ENV: "test",
        BENCH_BACKEND: backend.name,
        BENCH_TRANSPORT: transport,
      };
      const r = spawnSync(process.execPath, ["--import", "tsx", "bench/workflows.ts"], {
        cwd: ROOT,
        env,
        stdio: "inherit",
      });
      if (r.status !== 0) process.exitCode = 1;
    }
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
