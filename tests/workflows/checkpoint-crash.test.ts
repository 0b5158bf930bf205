import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";
import { crashProcesses } from "./child";

/**
 * Crash safety of checkpointed steps with real processes: a run whose call to serve() has
 * checkpointed its first step is killed with SIGKILL inside the second; a new process resumes it
 * from the last recorded step. The recorded step never runs again; the one in flight does. On
 * PGlite, and on PostgreSQL when DATABASE_URL is set (the suite's PostgreSQL run).
 */
const { env: childEnv, child } = crashProcesses("tests/workflows/checkpoint-crash-child.ts", "svc-ckpt-crash-");

test("a run killed between checkpoints resumes from its last recorded step; recorded steps never run again", async () => {
  const env = childEnv();
  const marks = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-ckpt-marks-")), "marks");
  fs.writeFileSync(marks, "");
  const killed = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let seen: Record<string, unknown> | null = null;
    const first = child(["start", marks], env, (line) => {
      if (typeof line.inTwo === "string" && !seen) {
        seen = line;
        first.kill("SIGKILL");
      }
    });
    first.once("exit", () =>
      seen ? resolve(seen) : reject(new Error("the first process exited before it was killed")),
    );
  });
  // Steps one and two ran in one call: step one was checkpointed before step two began.
  expect(killed.calls).toBe(1);
  const lines: Record<string, unknown>[] = [];
  const report = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const second = child(["resume", marks, String(killed.inTwo)], env, (line) => {
      lines.push(line);
      if (line.done) resolve(line);
    });
    second.once("exit", (code) => setTimeout(() => reject(new Error(`the resumed process exited with ${code}`)), 100));
  });
  console.log(JSON.stringify({ database: env.DATABASE_URL ? "postgres" : "pglite", ...report }));
  // What the killed process had recorded: step one, not the step it was in.
  expect(lines[0]).toMatchObject({ atResume: { steps: 1 } });
  expect(report).toMatchObject({ status: "completed", output: 3, calls: 1 });
  expect(report.marks).toBe("one\ntwo\ntwo\nthree\n");
  fs.rmSync(path.dirname(marks), { recursive: true, force: true });
}, 90_000);
