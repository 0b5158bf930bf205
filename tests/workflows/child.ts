import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

/** The repository root (the children run from it). */
export const ROOT = path.resolve(__dirname, "../..");

/**
 * Spawns a crash test's child script (`tsx`) and hands each JSON line it prints on stdout to
 * `onLine` (log lines are skipped). The caller kills or awaits it.
 */
export function spawnChild(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine: (line: Record<string, unknown>) => void,
): ChildProcess {
  const proc = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
    let i: number;
    while ((i = out.indexOf("\n")) >= 0) {
      const line = out.slice(0, i);
      out = out.slice(i + 1);
      if (line.startsWith('{"') && !line.includes('"level"')) onLine(JSON.parse(line) as Record<string, unknown>);
    }
  });
  proc.stderr?.resume();
  return proc;
}

/**
 * A crash test's processes, killed (and their embedded database removed) after the file's tests:
 * `env()` is the children's environment (the suite's database, or a fresh PGlite directory), and
 * `child()` spawns `script` with it.
 */
export function crashProcesses(script: string, dataPrefix: string, extraEnv: Record<string, string> = {}) {
  const children: ChildProcess[] = [];
  let dataDir = "";
  afterAll(() => {
    for (const c of children) c.kill("SIGKILL");
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    env: (): NodeJS.ProcessEnv => {
      const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn", ...extraEnv };
      delete env.VITEST;
      delete env.VITEST_WORKER_ID;
      if (!env.DATABASE_URL) {
        dataDir = fs.mkdtempSync(path.join(os.tmpdir(), dataPrefix));
        env.PGLITE_DIR = dataDir;
      }
      return env;
    },
    child: (args: string[], env: NodeJS.ProcessEnv, onLine: (line: Record<string, unknown>) => void): ChildProcess => {
      const proc = spawnChild(script, args, env, onLine);
      children.push(proc);
      return proc;
    },
  };
}
