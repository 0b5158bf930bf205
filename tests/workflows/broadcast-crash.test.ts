import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { spawnChild } from "./child";

/**
 * Crash safety of broadcasts with real processes: a broadcast is killed with SIGKILL half-way
 * through making its members' messages, and a new process resumes it; every active member must
 * then have exactly one message. On PGlite, and on PostgreSQL when DATABASE_URL is set. CI runs
 * 1,000 members; BROADCAST_CRASH_MEMBERS=10000 runs the issue's figure.
 */
const TOTAL = Number(process.env.BROADCAST_CRASH_MEMBERS ?? 1000);
const children: ChildProcess[] = [];
let dataDir = "";

afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

function child(args: string[], env: NodeJS.ProcessEnv, onLine: (line: Record<string, unknown>) => void): ChildProcess {
  const proc = spawnChild("tests/workflows/broadcast-crash-child.ts", args, env, onLine);
  children.push(proc);
  return proc;
}

test(`a ${TOTAL}-member broadcast killed half-way resumes after a restart: every member gets exactly one message`, async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn", BROADCAST_CHUNK_SIZE: "50" };
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  if (!env.DATABASE_URL) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-broadcast-crash-"));
    env.PGLITE_DIR = dataDir;
  }
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
