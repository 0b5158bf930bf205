import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { wfRuns } from "@/db/schema";
import { appendEvent } from "@/lib/events/ledger";
import { ingestEvents } from "@/lib/workflows/executor/store";
import { newOrg } from "./harness";
import { crashProcesses, ROOT } from "./workflows/child";

/**
 * Issue 12 #6: two real app processes on one PostgreSQL database (tests/cluster-child.ts: the /v1
 * API, the webhook dispatcher and the embedded executor, as each cluster worker runs them). Each
 * assertion fails if its state were kept per process: a key's request allowance is spent exactly
 * once across both, an endpoint's `rateLimitPerSecond` paces both together, and a function's
 * concurrency holds across both while each process runs some of its runs and no run twice.
 * PostgreSQL only (PGlite is opened by one process).
 */
const LIMIT = 20;
const processes = crashProcesses("tests/cluster-child.ts", "svc-cluster-", {
  RATE_LIMIT_PER_MINUTE: String(LIMIT),
  WEBHOOK_ALLOW_LOOPBACK_HTTP: "1",
});
const apps: { url: string; pid: number }[] = [];
const ran: { ran: string; pid: number; start: number; end: number }[] = [];
const appId = `cluster-${randomUUID().slice(0, 8)}`;

test("APP_PROCESSES > 1 is refused at start on the embedded database, saying why", () => {
  const env: NodeJS.ProcessEnv = { ...process.env, APP_PROCESSES: "2", PGLITE_DIR: "memory://", PORT: "0" };
  delete env.DATABASE_URL;
  const run = spawnSync(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: ROOT,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(run.status).not.toBe(0);
  expect(run.stderr).toContain("APP_PROCESSES: must be 1 on the embedded database");
}, 60_000);

describe.runIf(process.env.DATABASE_URL)("two app processes on one PostgreSQL database", () => {
  beforeAll(async () => {
    const env = processes.env();
    await Promise.all(
      [0, 1].map(
        () =>
          new Promise<void>((resolve, reject) => {
            const proc = processes.child([appId], env, (line) => {
              if ("url" in line) {
                apps.push(line as { url: string; pid: number });
                resolve();
              } else if ("ran" in line) ran.push(line as (typeof ran)[number]);
            });
            proc.on("exit", (code) => reject(new Error(`child exited with ${code}`)));
          }),
      ),
    );
  }, 60_000);

  test("a key's per-minute allowance is spent once across both processes", async () => {
    const org = await newOrg();
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < LIMIT + 6; i++) {
      const res = await fetch(`${apps[i % 2]?.url}/v1/whoami`, { headers: { authorization: `Bearer ${org.secret}` } });
      statuses.push(res.status);
      remaining.push(res.headers.get("ratelimit-remaining") ?? "");
      await res.arrayBuffer();
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT).every((s) => s === 429)).toBe(true);
    expect(remaining.slice(0, 3)).toEqual([String(LIMIT - 1), String(LIMIT - 2), String(LIMIT - 3)]);
  });

  test("an endpoint's rateLimitPerSecond paces both processes' dispatchers together", async () => {
    const receipts: { id: string; at: number }[] = [];
    const receiver: Server = createServer((req, res) => {
      receipts.push({ id: String(req.headers["webhook-id"]), at: Date.now() });
      req.resume();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const address = receiver.address();
    const org = await newOrg();
    const rate = 4;
    const created = await fetch(`${apps[0]?.url}/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${org.secret}`, "content-type": "application/json" },
      body: JSON.stringify({
        url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/hook`,
        events: ["message.sent"],
        rateLimitPerSecond: rate,
      }),
    });
    expect(created.status).toBe(200);
    const count = 20;
    const db = await getDb();
    await db.transaction(async (tx) => {
      for (let n = 0; n < count; n++)
        await appendEvent(tx, { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:cluster", data: { n } });
    });
    const deadline = Date.now() + 20_000;
    while (receipts.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    receiver.close();
    expect(new Set(receipts.map((r) => r.id)).size).toBe(count);
    // A burst of `rate`, then one every 1/rate s: the last one no sooner than (count - rate) / rate
    // seconds after the first (2 s if each process paced on its own).
    const times = receipts.map((r) => r.at).sort((a, b) => a - b);
    const span = (times[times.length - 1] ?? 0) - (times[0] ?? 0);
    expect(span).toBeGreaterThanOrEqual(((count - rate) / rate) * 1000 * 0.9);
    // In any second: the burst and the slots that open during it (7 for a rate of 4; 14 if paced per process).
    for (const t of times) expect(times.filter((u) => u >= t && u < t + 1000).length).toBeLessThanOrEqual(2 * rate);
  }, 30_000);

  test("workflow runs are shared: both processes run some, none runs twice, concurrency holds across both", async () => {
    const count = 30;
    const ids = await ingestEvents(Array.from({ length: count }, (_, n) => ({ name: "cluster/who", data: { n } })));
    expect(ids).toHaveLength(count);
    const db = await getDb();
    const fnId = `${appId}-who`;
    const deadline = Date.now() + 30_000;
    let runs: (typeof wfRuns.$inferSelect)[] = [];
    for (;;) {
      runs = await db.select().from(wfRuns).where(eq(wfRuns.functionId, fnId));
      if ((runs.length === count && runs.every((r) => r.status === "completed")) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(runs.map((r) => r.status)).toEqual(Array(count).fill("completed"));
    const byRun = new Map<string, number>();
    for (const r of ran) byRun.set(r.ran, (byRun.get(r.ran) ?? 0) + 1);
    expect(byRun.size).toBe(count);
    expect([...byRun.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(ran.map((r) => r.pid))).toEqual(new Set(apps.map((a) => a.pid)));
    // At most 3 steps at once in both processes together (4 workers could run 4).
    const peak = Math.max(...ran.map((r) => ran.filter((o) => o.start <= r.start && o.end > r.start).length));
    expect(peak).toBeLessThanOrEqual(3);
    console.log(
      JSON.stringify({
        runs: count,
        byProcess: Object.fromEntries(apps.map((a) => [a.pid, ran.filter((r) => r.pid === a.pid).length])),
        peak,
      }),
    );
  }, 40_000);
});
