import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/** Shared pieces of the benchmarks: start the built app, bootstrap a key, drive HTTP load. */
export const ROOT = path.resolve(import.meta.dirname, "..");
const NODE = process.execPath;
const TS = ["--import", "tsx"];

export type Backend = { name: "pglite" } | { name: "postgres"; url: string };

export function backendEnv(backend: Backend, dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
    RATE_LIMIT_PER_MINUTE: "100000000",
  };
  delete env.DATABASE_URL;
  if (backend.name === "postgres") env.DATABASE_URL = backend.url;
  else env.PGLITE_DIR = dataDir;
  return env;
}

export interface RunningServer {
  url: string;
  /** The server process's id (for its CPU time in `/proc/<pid>/stat`). */
  pid: number;
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** Starts `server.ts` (production build); `APP_PROCESSES` in `extraEnv` runs it as a cluster, ready when every worker listens. */
export async function startServer(
  backend: Backend,
  extraEnv: Record<string, string> = {},
  /** The tree to run (a copy of this one at another commit, built, to compare two versions in one run). */
  root: string = ROOT,
): Promise<RunningServer> {
  const processes = Number(extraEnv.APP_PROCESSES ?? 1);
  if (!fs.existsSync(path.join(root, ".next", "BUILD_ID")))
    throw new Error(`Build the app first: npm run build (in ${root})`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-"));
  const env = backendEnv(backend, path.join(dataDir, "pglite"));
  const port = 3400 + Math.floor(Math.random() * 500);
  const child: ChildProcess = spawn(NODE, [...TS, "server.ts"], {
    cwd: root,
    env: {
      ...env,
      SMTP_PORT: "0",
      ...extraEnv,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      OUTBOX_DIR: path.join(dataDir, "outbox"),
      STORAGE_DIR: path.join(dataDir, "storage"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 180_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.split('"msg":"server listening"').length > processes) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    env: { ...env, PGLITE_DIR: path.join(dataDir, "pglite") },
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `svc bootstrap` against the server's database (over its control socket on PGlite). */
export async function bootstrapKey(server: RunningServer): Promise<string> {
  const { stdout } = await promisify(execFile)(
    NODE,
    [...TS, "cli/svc.ts", "bootstrap", "--email", `bench-${Date.now()}@example.test`, "--org", "Bench", "--json"],
    {
      cwd: ROOT,
      env: server.env,
    },
  );
  return (JSON.parse(stdout) as { secret: string }).secret;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** `total` requests from `concurrency` clients; latency in milliseconds. */
export async function drive(concurrency: number, total: number, once: () => Promise<Response>): Promise<LoadResult> {
  const latencies: number[] = [];
  let issued = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < total) {
        issued++;
        const t0 = performance.now();
        const res = await once();
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (!res.ok) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

export function formatRow(label: string, r: LoadResult): string {
  return `${label.padEnd(34)} ${String(r.requests).padStart(7)} req  ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2).padStart(7)} ms  p99 ${r.p99.toFixed(2).padStart(7)} ms  errors ${r.errors}`;
}

/** The PostgreSQL benchmark database: BENCH_DATABASE_URL, or a fresh `svc_bench` on the local server. */
export async function postgresBackend(): Promise<Backend | null> {
  const url = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/svc_bench";
  const { default: postgres } = await import("postgres");
  const admin = postgres(url.replace(/\/[^/]+$/, "/postgres"), { max: 1, onnotice: () => {} });
  try {
    const name = new URL(url).pathname.slice(1);
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.unsafe(`create database "${name}"`);
    return { name: "postgres", url };
  } catch (err) {
    console.warn(`PostgreSQL not reachable (${String(err)}); skipping it.`);
    return null;
  } finally {
    await admin.end();
  }
}

/** Milliseconds from one of wrk's durations (`850.00us`, `5.23ms`, `1.02s`, `2.00m`). */
function wrkMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "ms" ? n : m[2] === "s" ? n * 1000 : n * 60_000;
}

/**
 * `seconds` of load from wrk (a C client: far less CPU than `drive`'s fetch loop, which matters
 * when the client shares the machine's cores with the server), `concurrency` connections; null
 * when wrk is not installed.
 */
export async function wrkDrive(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  concurrency: number,
): Promise<LoadResult | null> {
  const args = [
    "-t2",
    `-c${concurrency}`,
    `-d${seconds}s`,
    "--latency",
    ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
    url,
  ];
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)("wrk", args));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  const num = (re: RegExp) => Number(re.exec(stdout)?.[1] ?? Number.NaN);
  const requests = num(/(\d+) requests in/);
  return {
    requests,
    seconds: num(/requests in ([\d.]+)s/),
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    p50: wrkMs(/\s50%\s+(\S+)/.exec(stdout)?.[1] ?? ""),
    p99: wrkMs(/\s99%\s+(\S+)/.exec(stdout)?.[1] ?? ""),
    errors: num(/Non-2xx or 3xx responses: (\d+)/) || 0,
  };
}
