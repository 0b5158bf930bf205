import { expect, test } from "vitest";
import { crashProcesses } from "./child";

/**
 * Crash safety of the fan-out with real processes: a 20,000-member fan-out is killed with SIGKILL
 * half-way and a new process resumes it; every member must then exist exactly once. On PGlite, and
 * on PostgreSQL when DATABASE_URL is set (the suite's PostgreSQL run).
 */
const TOTAL = 20_000;
const { env: childEnv, child } = crashProcesses("tests/workflows/fanout-crash-child.ts", "svc-fanout-crash-");

test(`a ${TOTAL}-member fan-out killed half-way resumes after a restart: every member exactly once`, async () => {
  const env = childEnv();
  let fanoutId = "";
  let atKill = 0;
  await new Promise<void>((resolve, reject) => {
    const first = child(["start", String(TOTAL)], env, (line) => {
      if (typeof line.fanoutId === "string") fanoutId = line.fanoutId;
      if (typeof line.rowsDone === "number" && line.rowsDone >= TOTAL / 2 && !atKill) {
        atKill = line.rowsDone;
        first.kill("SIGKILL");
      }
    });
    first.once("exit", () => (atKill ? resolve() : reject(new Error("the first process exited before it was killed"))));
  });
  const report = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const second = child(["resume", fanoutId], env, (line) => {
      if (line.done) resolve(line);
    });
    second.once("exit", (code) => setTimeout(() => reject(new Error(`the resumed process exited with ${code}`)), 100));
  });
  console.log(JSON.stringify({ database: env.DATABASE_URL ? "postgres" : "pglite", rowsAtKill: atKill, ...report }));
  expect(atKill).toBeLessThan(TOTAL);
  expect(report).toMatchObject({
    rows: TOTAL,
    members: TOTAL,
    chunks: TOTAL / 250,
    chunkRows: TOTAL,
    fanout: { chunksTotal: TOTAL / 250, chunksDone: TOTAL / 250, rowsDone: TOTAL },
  });
}, 170_000);
