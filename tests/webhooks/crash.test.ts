import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, expect, test } from "vitest";

/**
 * Crash safety of webhook delivery with real processes: a process appends events and delivers
 * them to a loopback receiver that fails 30% of requests; it is killed with SIGKILL mid-delivery
 * and a new process finishes. Every event must reach the receiver with a 2xx at least once, every
 * request must verify with the `standardwebhooks` library, the log must hold every attempt (none
 * left pending) and duplicates stay within the in-flight window. On PGlite, and on PostgreSQL when
 * DATABASE_URL is set (the suite's PostgreSQL run).
 */
const ROOT = path.resolve(__dirname, "../..");
const COUNT = Number(process.env.CRASH_EVENTS ?? 2000);
/** Attempts one process has in flight at most: loops × the largest batch (lib/webhooks/dispatcher.ts). */
const IN_FLIGHT = 3 * 200;
const children: ChildProcess[] = [];
let dataDir = "";

afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

function child(
  args: string[],
  env: NodeJS.ProcessEnv,
): { proc: ChildProcess; lines: Record<string, unknown>[]; next: (key: string) => Promise<Record<string, unknown>> } {
  const proc = spawn(process.execPath, ["--import", "tsx", "tests/webhooks/crash-child.ts", ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(proc);
  const lines: Record<string, unknown>[] = [];
  let out = "";
  let err = "";
  const waiters: (() => void)[] = [];
  proc.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
    let i: number;
    while ((i = out.indexOf("\n")) >= 0) {
      const line = out.slice(0, i);
      out = out.slice(i + 1);
      if (line.startsWith('{"') && !line.includes('"level"')) lines.push(JSON.parse(line) as Record<string, unknown>);
      for (const w of waiters.splice(0)) w();
    }
  });
  proc.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const next = (key: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const hit = lines.find((l) => key in l);
        if (hit) return resolve(hit);
        if (proc.exitCode !== null) return reject(new Error(`child exited ${proc.exitCode}: ${err.slice(-2000)}`));
        waiters.push(check);
      };
      proc.once("exit", () => setTimeout(check, 50));
      check();
    });
  return { proc, lines, next };
}

test(
  `kill -9 mid-delivery of ${COUNT} events to a receiver failing 30%: after a restart every event is delivered, signed, logged`,
  async () => {
    const received = new Map<string, number>(); // eventId → 2xx answers
    let requests = 0;
    let badSignatures = 0;
    let secret = "";
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const n = requests++;
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        try {
          new Webhook(secret).verify(Buffer.concat(chunks).toString(), headers);
        } catch {
          badSignatures++;
        }
        const fail = n % 10 < 3;
        if (!fail) received.set(headers["webhook-id"] ?? "", (received.get(headers["webhook-id"] ?? "") ?? 0) + 1);
        res.writeHead(fail ? 500 : 200).end(fail ? "no" : "ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const a = server.address();
    const url = `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}/hook`;

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      LOG_LEVEL: "warn",
      WEBHOOK_ALLOW_LOOPBACK_HTTP: "true",
      WEBHOOK_RETRY_SCHEDULE: "0,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20",
      WEBHOOK_TIMEOUT_MS: "2000",
      WEBHOOK_BREAKER_THRESHOLD: "1000000",
    };
    delete env.VITEST;
    delete env.VITEST_WORKER_ID;
    if (!env.DATABASE_URL) {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-crash-"));
      env.PGLITE_DIR = dataDir;
    }
    try {
      const first = child(["seed", url, String(COUNT)], env);
      const hook = await first.next("webhookId");
      secret = String(hook.secret);
      // Kill it mid-delivery (and maybe mid-append): once a third of the events have been answered.
      while (requests < COUNT / 3) {
        if (first.proc.exitCode !== null) throw new Error("the first process exited");
        await new Promise((r) => setTimeout(r, 20));
      }
      first.proc.kill("SIGKILL");
      await new Promise((r) => first.proc.once("exit", r));
      const atKill = { requests, delivered: received.size };

      // The restart: it appends nothing; whatever was committed must be delivered.
      const second = child(["drain", String(hook.webhookId)], env);
      const report = await second.next("log");
      const log = report.log as Record<string, number>;
      const duplicates = [...received.values()].reduce((s, n) => s + n - 1, 0);
      const committed = Number(report.committed);
      console.log(
        JSON.stringify({
          database: env.DATABASE_URL ? "postgres" : "pglite",
          atKill,
          committed,
          requests,
          uniqueDelivered: received.size,
          duplicates,
          log,
          interrupted: report.interrupted,
        }),
      );

      expect(atKill.delivered).toBeLessThan(committed); // killed mid-delivery
      expect(committed).toBeGreaterThanOrEqual(COUNT / 10);
      expect(badSignatures).toBe(0);
      // Every committed event reached the receiver with a 2xx (and nothing else did).
      expect(received.size).toBe(committed);
      // Every answered request is in the log (successes exactly); nothing is left pending.
      expect(log.pending ?? 0).toBe(0);
      expect(log.succeeded).toBeGreaterThanOrEqual(received.size);
      expect((log.succeeded ?? 0) + (log.failed ?? 0)).toBeGreaterThanOrEqual(requests - IN_FLIGHT);
      expect(duplicates).toBeLessThanOrEqual(IN_FLIGHT);
      expect(report.endpoint).toBe("active");
    } finally {
      server.closeAllConnections();
      server.close();
    }
  },
  Math.max(170_000, COUNT * 90),
);
