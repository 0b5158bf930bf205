import { expect, test } from "vitest";
import { crashProcesses } from "./child";

/**
 * Crash safety of broadcasts with real processes: a broadcast is killed with SIGKILL half-way
 * through making its members' messages, and a new process resumes it; every active member must
 * then have exactly one message. On PGlite, and on PostgreSQL when DATABASE_URL is set. CI runs
 * 1,000 members; BROADCAST_CRASH_MEMBERS=10000 runs the issue's figure.
 */
const TOTAL = Number(process.env.BROADCAST_CRASH_MEMBERS ?? 1000);
const { env: childEnv, child } = crashProcesses("tests/workflows/broadcast-crash-child.ts", "svc-broadcast-crash-", {
  BROADCAST_CHUNK_SIZE: "50",
});

test(`a ${TOTAL}-member broadcast killed half-way resumes after a restart: every member gets exactly one message`, async () => {
  const env = childEnv();
  let broadcastId = "";
  let orgId = "";
  let atKill = 0;
  await new Promise<void>((resolve, reject) => {
    const first = child(["start", String(TOTAL)], env, (line) => {
      if (typeof line.broadcastId === "string") {
        broadcastId = line.broadcastId;
        orgId = String(line.orgId);
      }
      if (typeof line.made === "number" && line.made >= TOTAL / 2 && !atKill) {
        atKill = line.made;
        first.kill("SIGKILL");
      }
    });
    first.once("exit", () => (atKill ? resolve() : reject(new Error("the first process exited before it was killed"))));
  });
  const report = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const second = child(["resume", orgId, broadcastId], env, (line) => {
      if (line.done) resolve(line);
    });
    second.once("exit", (code) => setTimeout(() => reject(new Error(`the resumed process exited with ${code}`)), 100));
  });
  console.log(JSON.stringify({ database: env.DATABASE_URL ? "postgres" : "pglite", madeAtKill: atKill, ...report }));
  expect(atKill).toBeGreaterThan(0);
  expect(atKill).toBeLessThan(TOTAL);
  expect(report).toMatchObject({ messages: TOTAL, members: TOTAL, audience: TOTAL });
}, 400_000);
