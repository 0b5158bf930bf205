import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, test } from "vitest";

/**
 * The CLI and the server as real processes: bootstrap on a fresh data directory, bootstrap while
 * a server owns the directory (through its control socket), and the data-directory lock.
 */
const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "..");
/** `node --import tsx`, so that a child's pid is the process itself (the tsx binary forks). */
const NODE = process.execPath;
const TS = ["--import", "tsx"];

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "development",
    LOG_LEVEL: "info",
    NEXT_TELEMETRY_DISABLED: "1",
    SVC_UNLOCKED_DIST_DIR: "1",
    SMTP_PORT: "0",
    ...extra,
  };
  delete env.DATABASE_URL;
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  return env;
}

/**
 * A CLI call is a fresh process (tsx, and the embedded database opened and migrated): seconds on
 * an idle machine, twenty and more on a loaded one, so a test gets this much per call it makes.
 */
const CLI_CALL_MS = 60_000;

async function svc(args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  return run(NODE, [...TS, "cli/svc.ts", ...args], { cwd: ROOT, env, timeout: CLI_CALL_MS });
}

const tmpDirs: string[] = [];
function tmpDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cli-"));
  tmpDirs.push(dir);
  return path.join(dir, "pglite");
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string; log: () => string }> {
  const child = spawn(NODE, [...TS, "server.ts"], {
    cwd: ROOT,
    env: childEnv({ PGLITE_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /"msg":"server listening","url":"(http:\/\/[^"]+)"/.exec(output);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: m[1], log: () => output });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

describe("svc bootstrap", () => {
  test(
    "on a fresh embedded database, then again for the same email",
    async () => {
      const env = childEnv({ PGLITE_DIR: tmpDataDir() });
      const first = JSON.parse(
        (await svc(["bootstrap", "--email", "ops@example.test", "--org", "Ops", "--json"], env)).stdout,
      );
      expect(first.secret).toMatch(/^svc_live_/);
      expect(first.apiKey.scopes).toEqual(["admin"]);
      expect(first.organization.name).toBe("Ops");
      const second = JSON.parse(
        (await svc(["bootstrap", "--email", "ops@example.test", "--org", "Ops", "--json"], env)).stdout,
      );
      expect(second.organization.id).toBe(first.organization.id);
      expect(second.apiKey.id).not.toBe(first.apiKey.id);
      const human = await svc(["bootstrap", "--email", "ops@example.test", "--org", "Ops"], env);
      expect(human.stdout).toMatch(/Secret \(shown once; store it now\):\n\s+svc_live_\w{40}/);
    },
    3 * CLI_CALL_MS,
  );

  test(
    "bad arguments fail with a clear message",
    async () => {
      const env = childEnv({ PGLITE_DIR: tmpDataDir() });
      await expect(svc(["bootstrap", "--email", "nope", "--org", "X"], env)).rejects.toMatchObject({
        stderr: expect.stringContaining("--email"),
      });
      await expect(svc(["frobnicate"], env)).rejects.toMatchObject({
        stderr: expect.stringContaining("Unknown command"),
      });
    },
    2 * CLI_CALL_MS,
  );

  test("while the server runs on PGlite: through the control socket, never by opening the files", async () => {
    const dataDir = tmpDataDir();
    const server = await startServer(dataDir);
    expect(fs.readFileSync(path.join(dataDir, "svc.lock"), "utf8").trim()).toBe(String(server.child.pid));
    expect(fs.statSync(path.join(dataDir, "svc.sock")).mode & 0o777).toBe(0o600);

    const env = childEnv({ PGLITE_DIR: dataDir });
    const out = JSON.parse(
      (await svc(["bootstrap", "--email", "live@example.test", "--org", "Live", "--json"], env)).stdout,
    );
    expect(out.secret).toMatch(/^svc_live_/);
    expect(server.log()).toContain('"msg":"control command","command":"bootstrap"');

    // The key works against the running server over HTTP.
    const res = await fetch(`${server.url}/v1/whoami`, { headers: { Authorization: `Bearer ${out.secret}` } });
    expect(res.status).toBe(200);
    const who = (await res.json()) as { organization: { id: string } };
    expect(who.organization.id).toBe(out.organization.id);
    const spec = await fetch(`${server.url}/v1/openapi.json`);
    expect(((await spec.json()) as { openapi: string }).openapi).toBe("3.1.0");

    // A second server on the same directory refuses to start.
    const second = spawn(NODE, [...TS, "server.ts"], {
      cwd: ROOT,
      env: childEnv({ PGLITE_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(second);
    let secondOut = "";
    second.stdout.on("data", (c: Buffer) => (secondOut += c.toString()));
    second.stderr.on("data", (c: Buffer) => (secondOut += c.toString()));
    const code = await new Promise<number | null>((resolve) => second.on("exit", resolve));
    expect(code).toBe(1);
    expect(secondOut).toContain(`held by a running server (pid ${server.child.pid})`);

    server.child.kill("SIGTERM");
    await new Promise((resolve) => server.child.on("exit", resolve));
    expect(fs.existsSync(path.join(dataDir, "svc.lock"))).toBe(false);
    // With the server gone the CLI opens the directory itself and sees the same data.
    const after = JSON.parse(
      (await svc(["bootstrap", "--email", "live@example.test", "--org", "Live", "--json"], env)).stdout,
    );
    expect(after.organization.id).toBe(out.organization.id);
  }, 180_000);

  test.runIf(process.env.DATABASE_URL)(
    "on PostgreSQL, directly",
    async () => {
      const env = { ...childEnv({}), DATABASE_URL: process.env.DATABASE_URL };
      const out = JSON.parse(
        (await svc(["bootstrap", "--email", `pg-${Date.now()}@example.test`, "--org", "PG", "--json"], env)).stdout,
      );
      expect(out.secret).toMatch(/^svc_live_/);
    },
    CLI_CALL_MS,
  );
});
