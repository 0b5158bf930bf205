/**
 * A real process for the checkpoint crash test (tests/workflows/checkpoint-crash.test.ts): a
 * three-step function behind the SDK's serve() and the embedded executor, on the database its
 * environment names. Each step appends its name to the file <marks> when it runs.
 *   start <marks>           sends one event; step "two" prints {"inTwo": runId, "calls": n} and
 *                           never ends (the process is killed there).
 *   resume <marks> <runId>  recovers (PGlite: runs the dead process left running), prints what the
 *                           run had recorded, drives it to completion and prints the outcome.
 */
import fs from "node:fs";
import { eq } from "drizzle-orm";
import { closeDb, getDb, getDbHandle } from "@/db";
import { wfRuns } from "@/db/schema";
import { recoverOrphanedRuns } from "@/lib/workflows/executor/store";
import { startHarness } from "./harness";

const say = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);
const [mode, marks = "", runArg = ""] = process.argv.slice(2);
const db = await getDb();
const h = await startHarness({ workers: 2, leaseMs: 3_000 }, "checkpoint-crash");
let calls = 0;
const fn = h.client.createFunction({ id: "crashy", triggers: [{ event: "t/crashy" }] }, async ({ step, runId }) => {
  calls++; // the function body runs once per call to serve()
  const a = await step.run("one", () => {
    fs.appendFileSync(marks, "one\n");
    return 1;
  });
  const b = await step.run("two", async () => {
    fs.appendFileSync(marks, "two\n");
    if (mode === "start") {
      say({ inTwo: runId, calls });
      await new Promise(() => {});
    }
    return a + 1;
  });
  return step.run("three", () => {
    fs.appendFileSync(marks, "three\n");
    return b + 1;
  });
});
await h.serveFunctions([fn]);

if (mode === "start") {
  h.executor.start();
  await h.client.send({ name: "t/crashy", data: {} });
} else {
  if ((await getDbHandle()).kind === "pglite") await recoverOrphanedRuns([runArg]);
  const [before] = await db.select().from(wfRuns).where(eq(wfRuns.id, runArg));
  say({ atResume: { status: before?.status, steps: Object.keys(before?.steps ?? {}).length } });
  h.executor.start();
  for (;;) {
    const [run] = await db.select().from(wfRuns).where(eq(wfRuns.id, runArg));
    if (run?.status === "completed" || run?.status === "failed") {
      say({ done: true, status: run.status, output: run.output, calls, marks: fs.readFileSync(marks, "utf8") });
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await h.close();
  await closeDb();
  process.exit(0);
}
