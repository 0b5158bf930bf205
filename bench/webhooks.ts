/**
 * Webhook delivery benchmark, PGlite and PostgreSQL, one subscribed endpoint, a loopback receiver:
 * - throughput: BENCH_EVENTS ledger appends (default 10,000; 500 per transaction) queued while the
 *   dispatcher is stopped, then drained by it → deliveries/s;
 * - latency when not saturated: BENCH_LATENCY_EVENTS (300) appends one by one, 10 ms apart, with
 *   the dispatcher running → append → receipt p50/p99;
 * - floor: the same receiver driven by undici over the same keep-alive pool size, 64 in flight.
 *
 *   npm run bench:webhooks
 */
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Agent, request } from "undici";
import { backendEnv, postgresBackend, ROOT } from "./lib";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 300);
/** BENCH_CPU_PROFILE=dir: a CPU profile of the drain alone, written to dir/webhooks-<backend>.cpuprofile. */
const PROFILE_DIR = process.env.BENCH_CPU_PROFILE;

/** Starts the inspector's CPU profiler when BENCH_CPU_PROFILE is set; the returned function writes the profile. */
async function startProfile(): Promise<(() => Promise<void>) | null> {
  if (!PROFILE_DIR) return null;
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    fs.mkdirSync(PROFILE_DIR, { recursive: true });
    fs.writeFileSync(
      path.join(PROFILE_DIR, `webhooks-${process.env.BENCH_BACKEND}.cpuprofile`),
      JSON.stringify(profile),
    );
    session.disconnect();
  };
}

async function measure(): Promise<void> {
  const { getDb, closeDb } = await import("@/db");
  const { bootstrap } = await import("@/lib/organizations/bootstrap");
  const { appendEvent } = await import("@/lib/events/ledger");
  const { createWebhook } = await import("@/lib/webhooks/service");
  const { expandScopes } = await import("@/lib/auth/scopes");
  const { startWebhookDispatcher, stopWebhookDispatcher } = await import("@/lib/webhooks/dispatcher");

  // Receipt times by event id; a latency is paired after both ends are known (a receipt may come
  // before the append's await returns).
  const appendedAt = new Map<string, number>();
  const receivedAt = new Map<string, number>();
  let received = 0;
  const receiver = createServer((req, res) => {
    const id = String(req.headers["webhook-id"]);
    req.resume();
    req.on("end", () => {
      received++;
      if (!receivedAt.has(id)) receivedAt.set(id, performance.now());
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const address = receiver.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/hook`;

  const db = await getDb();
  const boot = await bootstrap(db, { email: `bench-${Date.now()}@example.test`, orgName: "Bench" });
  const principal = {
    orgId: boot.organization.id,
    userId: boot.user.id,
    apiKeyId: boot.apiKey.id,
    scopes: expandScopes(["admin"]),
    inboxIds: null,
    actor: "bench",
    ip: null,
    requestId: null,
  };
  await createWebhook(db, principal, { url, events: ["message.received"] });
  const label = (process.env.BENCH_BACKEND ?? "").padEnd(9);

  // Throughput: a backlog, drained.
  for (let i = 0; i < EVENTS; i += 500) {
    await db.transaction(async (tx) => {
      for (let j = i; j < Math.min(EVENTS, i + 500); j++)
        await appendEvent(tx, {
          orgId: principal.orgId,
          type: "message.received",
          partitionKey: `inbox:${j % 20}`,
          data: { j },
        });
    });
  }
  const profile = await startProfile();
  const started = performance.now();
  await startWebhookDispatcher();
  while (received < EVENTS) {
    if (performance.now() - started > 1_800_000) throw new Error(`only ${received} of ${EVENTS} delivered`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  await profile?.();
  console.log(
    `${label} ${EVENTS} queued deliveries drained  ${(EVENTS / seconds).toFixed(1).padStart(7)} deliveries/s`,
  );

  // Latency, not saturated.
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const t = performance.now();
    const e = await db.transaction((tx) =>
      appendEvent(tx, { orgId: principal.orgId, type: "message.received", partitionKey: "inbox:lat", data: { i } }),
    );
    appendedAt.set(e.eventId, t);
    await new Promise((r) => setTimeout(r, 10));
  }
  const waitStarted = performance.now();
  while ([...appendedAt.keys()].some((id) => !receivedAt.has(id))) {
    if (performance.now() - waitStarted > 60_000)
      throw new Error(
        `${[...appendedAt.keys()].filter((id) => !receivedAt.has(id)).length} of ${LATENCY_EVENTS} appends not delivered after 60 s`,
      );
    await new Promise((r) => setTimeout(r, 20));
  }
  const latencies = [...appendedAt].map(([id, t]) => (receivedAt.get(id) ?? 0) - t).sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  console.log(
    `${label} ${LATENCY_EVENTS} appends 10 ms apart       append → receipt p50 ${pct(50).toFixed(1)} ms  p99 ${pct(99).toFixed(1)} ms`,
  );
  await stopWebhookDispatcher();

  // Floor: the receiver alone, over a keep-alive pool of the dispatcher's size, 64 in flight.
  const agent = new Agent({ connections: 16 });
  const body = JSON.stringify({
    eventId: "evt_floor",
    type: "message.received",
    createdAt: new Date().toISOString(),
    data: { j: 1 },
  });
  let next = 0;
  const floorStarted = performance.now();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next++ < EVENTS) {
        const r = await request(url, {
          method: "POST",
          body,
          headers: { "content-type": "application/json", "webhook-id": "floor" },
          dispatcher: agent,
        });
        await r.body.text();
      }
    }),
  );
  const floorSeconds = (performance.now() - floorStarted) / 1000;
  console.log(
    `${label} floor: ${EVENTS} POSTs to the receiver   ${(EVENTS / floorSeconds).toFixed(1).padStart(7)} req/s (undici, 16 connections, no database)`,
  );
  await agent.close();
  receiver.close();
  await closeDb();
}

if (process.env.BENCH_BACKEND) {
  await measure();
} else {
  console.log(`webhook benchmark: ${EVENTS} events to one endpoint (dispatcher: 3 loops × 50–200 per claim)`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-wh-"));
  const backends = [{ name: "pglite" as const }, ...[await postgresBackend()].filter((b) => b !== null)];
  for (const backend of backends) {
    const env: NodeJS.ProcessEnv = {
      ...backendEnv(backend, path.join(dataDir, backend.name)),
      NODE_ENV: "test",
      BENCH_BACKEND: backend.name,
      WEBHOOK_ALLOW_LOOPBACK_HTTP: "true",
      INNGEST_SIGNING_KEY: "signkey-bench-00112233445566778899aabbccddeeff",
    };
    const r = spawnSync(process.execPath, ["--import", "tsx", "bench/webhooks.ts"], {
      cwd: ROOT,
      env,
      stdio: "inherit",
    });
    if (r.status !== 0) process.exitCode = 1;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
