/**
 * Fan-out benchmark, PGlite and PostgreSQL: a synthetic fan-out of BENCH_ROWS members (default
 * 100,000) in chunks of BENCH_CHUNK (1,000) through the app's real functions (orchestrator, chunk
 * workers, the embedded executor, the SDK's serve()), beside its floor: the same rows written by a
 * plain batched INSERT (1,000 rows per statement, one transaction per chunk) in this process.
 *
 *   npm run bench:fanout
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { backendEnv, postgresBackend, ROOT } from "./lib";

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const CHUNK = Number(process.env.BENCH_CHUNK ?? 1000);

async function measure(): Promise<void> {
  // As the server does at start (server.ts): the SDK enumerates process.env on every call.
  const { snapshotProcessEnv } = await import("@/lib/runtime/process-env");
  snapshotProcessEnv();
  const { eq } = await import("drizzle-orm");
  const { getDb, closeDb } = await import("@/db");
  const { fanouts } = await import("@/db/schema");
  const { inngest } = await import("@/inngest/client");
  const { functions } = await import("@/inngest/functions");
  const { insertRows, startFanout } = await import("@/lib/workflows/fanout");
  const { startHarness } = await import("../tests/workflows/harness");
  const label = (process.env.BENCH_BACKEND ?? "").padEnd(9);
  const db = await getDb();

  // Floor: the same rows, plain batched INSERTs (a fan-out row of its own to reference).
  const floor = await db.transaction((tx) =>
    startFanout(tx, { kind: "synthetic", params: { total: 0 }, chunkSize: CHUNK }),
  );
  const floorStarted = performance.now();
  for (let i = 0; i < ROWS; i += CHUNK) {
    const members = Array.from({ length: Math.min(CHUNK, ROWS - i) }, (_, j) => ({
      key: `m${String(i + j + 1).padStart(7, "0")}`,
      data: { n: i + j + 1 },
    }));
    await db.transaction((tx) => insertRows(tx, floor.id, members));
  }
  const floorRate = ROWS / ((performance.now() - floorStarted) / 1000);

  const h = await startHarness({ workers: Number(process.env.WORKFLOW_WORKERS ?? 4), pollMs: 200 });
  await h.serveApp(inngest, functions);
  h.executor.start();
  const started = performance.now();
  const run = await db.transaction((tx) =>
    startFanout(tx, { kind: "synthetic", params: { total: ROWS }, chunkSize: CHUNK }),
  );
  await run.afterCommit();
  for (;;) {
    const [f] = await db.select().from(fanouts).where(eq(fanouts.id, run.id));
    if (f?.status === "completed") break;
    if (performance.now() - started > 1_800_000) throw new Error(`fan-out not done: ${JSON.stringify(f)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const rate = ROWS / ((performance.now() - started) / 1000);
  console.log(
    `${label} ${ROWS} rows, chunks of ${CHUNK}: fan-out ${rate.toFixed(0).padStart(7)} rows/s   plain batched INSERT ${floorRate.toFixed(0).padStart(7)} rows/s   (${((100 * rate) / floorRate).toFixed(0)}%)`,
  );
  await h.close();
  await closeDb();
}

if (process.env.BENCH_BACKEND) {
  await measure();
} else {
  console.log(`fan-out benchmark: ${ROWS} synthetic members`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-fanout-"));
  const backends = [{ name: "pglite" as const }, ...[await postgresBackend()].filter((b) => b !== null)];
  for (const backend of backends) {
    const env: NodeJS.ProcessEnv = {
      ...backendEnv(backend, path.join(dataDir, backend.name)),
      NODE_ENV: "test",
      BENCH_BACKEND: backend.name,
      INNGEST_SIGNING_KEY: "signkey-bench-00112233445566778899aabbccddeeff",
    };
    const r = spawnSync(process.execPath, ["--import", "tsx", "bench/fanout.ts"], { cwd: ROOT, env, stdio: "inherit" });
    if (r.status !== 0) process.exitCode = 1;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
