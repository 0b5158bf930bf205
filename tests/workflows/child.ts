import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

/** The repository root (the children run from it). */
export const ROOT = path.resolve(__dirname, "../..");

/**
 * Spawns a crash test's child script (`tsx`) and hands each JSON line it prints on stdout to
 * `onLine` (log lines are skipped). The caller kills or awaits it.
 */
export function spawnChild(script: string, args: string[], env: NodeJS.ProcessEnv, onLine: (line: Record<string, unknown>) => void): ChildProcess {
  const proc = spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
    let i: number;
    while ((i = out.indexOf("\n")) >= 0) {
      const line = out.slice(0, i);
      out = out.slice(i + 1);
      if (line.startsWith("{\"") && !line.includes("\"level\"")) onLine(JSON.parse(line) as Record<string, unknown>);
    }
  });
  proc.stderr?.resume();
  return proc;
}
