/**
 * Webhook delivery benchmark, PGlite and PostgreSQL, one subscribed endpoint, a loopback receiver.
 *
 * Drain mode (the default), in-process:
 * - throughput: BENCH_EVENTS ledger appends (default 10,000; 500 per transaction) queued while the
 *   dispatcher is stopped, then drained by it → deliveries/s;
 * - latency when not saturated: BENCH_LATENCY_EVENTS (300) appends one by one, 10 ms apart, with
 *   the dispatcher running → append → receipt p50/p99;
 * - floor: the same receiver driven by undici over the same keep-alive pool size, 64 in flight.
 *
 *   npm run bench:webhooks
 *
 * End-to-end mode, on the production build (`npm run build` first), a server process started as
 * bench/send.ts does: one organization with two inboxes (a2a: the recipient is an inbox here) and a
 * webhook on a loopback receiver in this process subscribed to `message.received`; BENCH_SENDS
 * (2,000) sends `POST /v1/messages` A → B from BENCH_CLIENTS (16) clients. Measured from each
 * send's HTTP answer to the receiver's receipt of its `message.received` delivery (matched by the
 * subject): p50 and p99, and sends → receipts per second (first send to last receipt). Printed
 * beside the same sends with no webhook (the send floor, same server, just before).
 * BENCH_SERVER_PROFILE=dir runs the server under `node --cpu-prof` (written to dir at its stop).
 * BENCH_COMPARE=dir runs the same on a built copy of the app at another commit in dir first, then on
 * this tree, per database (two versions measured in one run).
 *
 *   npm run build && npm run bench:webhooks -- e2e
 *
 * Idle mode: a production server with nothing to do, its CPU time (`/proc/<pid>/stat` utime +
 * stime) over BENCH_IDLE_SECONDS (60) after BENCH_IDLE_SETTLE_SECONDS (30) of start-up.
 *
 *   npm run build && npm run bench:webhooks -- idle
 */
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Agent, request } from "undici";
import { type Backend, backendEnv, bootstrapKey, postgresBackend, ROOT, type RunningServer, startServer } from "./lib";

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

const SENDS = Number(process.env.BENCH_SENDS ?? 2000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const SERVER_PROFILE = process.env.BENCH_SERVER_PROFILE;

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

/** `total` sends from `clients` concurrent clients; the time each was answered, by subject. */
async function sendAll(
  clients: number,
  total: number,
  send: (subject: string) => Promise<Response>,
  prefix: string,
): Promise<{ seconds: number; answeredAt: Map<string, number>; latencies: number[]; errors: number }> {
  const answeredAt = new Map<string, number>();
  const latencies: number[] = [];
  let issued = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (issued < total) {
        const subject = `${prefix} ${issued++}`;
        const t0 = performance.now();
        // A keep-alive connection the server closed as it was reused: the send is retried under
        // its idempotency key (never made twice).
        let res: Response | null = null;
        for (let attempt = 1; !res; attempt++) {
          try {
            res = await send(subject);
          } catch (err) {
            if (attempt === 3) throw err;
          }
        }
        const text = await res.text();
        const t1 = performance.now();
        if (res.status >= 300) {
          if (errors++ === 0) console.warn(`first failed send: ${res.status} ${text}`);
        } else answeredAt.set(subject, t1);
        latencies.push(t1 - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { seconds: (performance.now() - started) / 1000, answeredAt, latencies, errors };
}

async function endToEndBackend(backend: Backend, root: string): Promise<void> {
  const receivedAt = new Map<string, number>();
  let duplicates = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const t = performance.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { data?: { subject?: string } };
        const subject = body.data?.subject ?? "";
        if (receivedAt.has(subject)) duplicates++;
        else receivedAt.set(subject, t);
      } catch {
        // A body that is not JSON is not ours.
      }
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const address = receiver.address();
  const hookUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/hook`;

  const extra: Record<string, string> = { WEBHOOK_ALLOW_LOOPBACK_HTTP: "true" };
  if (SERVER_PROFILE) {
    fs.mkdirSync(SERVER_PROFILE, { recursive: true });
    extra.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${path.resolve(SERVER_PROFILE)} --cpu-prof-name=server-${backend.name}-${Date.now()}.cpuprofile`;
  }
  const server: RunningServer = await startServer(backend, extra, root);
  try {
    const secret = await bootstrapKey(server);
    const auth = { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" };
    const api = async <T>(method: string, url: string, body: unknown): Promise<T> => {
      // A server just started may answer its first requests with an error while it warms up: tried again.
      for (let attempt = 1; ; attempt++) {
        const res = await fetch(`${server.url}${url}`, { method, headers: auth, body: JSON.stringify(body) });
        const text = await res.text();
        if (res.status < 300) return JSON.parse(text) as T;
        if (attempt === 5) throw new Error(`${method} ${url}: ${res.status} ${text}`);
        await new Promise((r) => setTimeout(r, 2000));
      }
    };
    const stamp = Date.now();
    const { inbox: a } = await api<{ inbox: { id: string } }>("POST", "/v1/inboxes", {
      address: `a2a-a-${stamp}@svc.localhost`,
    });
    const { inbox: b } = await api<{ inbox: { address: string } }>("POST", "/v1/inboxes", {
      address: `a2a-b-${stamp}@svc.localhost`,
    });
    const send = (subject: string) =>
      fetch(`${server.url}/v1/messages`, {
        method: "POST",
        headers: { ...auth, "Idempotency-Key": `${stamp}-${subject.replaceAll(" ", "-")}` },
        body: JSON.stringify({ inboxId: a.id, to: b.address, subject, text: "Hello from the webhook benchmark." }),
      });
    const label = `${backend.name}${root === ROOT ? "" : ` (${path.basename(root)})`}`.padEnd(28);

    // Warm-up, then the send floor: the same sends with no webhook.
    await sendAll(CLIENTS, 100, send, "warm");
    const floor = await sendAll(CLIENTS, SENDS, send, "floor");
    const floorRate = SENDS / floor.seconds;
    console.log(
      `${label} sends, no webhook (floor)       ${floorRate.toFixed(1).padStart(7)} sends/s   answer p50 ${pct(floor.latencies, 50).toFixed(1)} ms  p99 ${pct(floor.latencies, 99).toFixed(1)} ms  errors ${floor.errors}  load ${load()}`,
    );

    await api("POST", "/v1/webhooks", { url: hookUrl, events: ["message.received"] });
    const started = performance.now();
    const run = await sendAll(CLIENTS, SENDS, send, "hook");
    const sentAt = performance.now();
    while ([...run.answeredAt.keys()].some((s) => !receivedAt.has(s))) {
      if (performance.now() - sentAt > 600_000) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const got = [...run.answeredAt].filter(([s]) => receivedAt.has(s));
    const lastReceipt = Math.max(...got.map(([s]) => receivedAt.get(s) ?? 0));
    const e2eRate = got.length / ((lastReceipt - started) / 1000);
    const lat = got.map(([s, t]) => (receivedAt.get(s) ?? 0) - t).sort((x, y) => x - y);
    console.log(
      `${label} sends with a webhook            ${(SENDS / run.seconds).toFixed(1).padStart(7)} sends/s   answer p50 ${pct(run.latencies, 50).toFixed(1)} ms  p99 ${pct(run.latencies, 99).toFixed(1)} ms  errors ${run.errors}`,
    );
    console.log(
      `${label} send answer → receipt           ${e2eRate.toFixed(1).padStart(7)} receipts/s p50 ${pct(lat, 50).toFixed(1)} ms  p99 ${pct(lat, 99).toFixed(1)} ms  max ${(lat.at(-1) ?? Number.NaN).toFixed(1)} ms  received ${got.length}/${run.answeredAt.size}  duplicates ${duplicates}  = ${((100 * e2eRate) / floorRate).toFixed(0)}% of the floor  load ${load()}`,
    );
  } finally {
    await server.stop();
    receiver.close();
  }
}

async function endToEnd(): Promise<void> {
  console.log(
    `webhook benchmark, end to end: ${SENDS} a2a sends from ${CLIENTS} clients → a loopback receiver (message.received), production build`,
  );
  const roots = [...(process.env.BENCH_COMPARE ? [path.resolve(process.env.BENCH_COMPARE)] : []), ROOT];
  for (const root of roots) await endToEndBackend({ name: "pglite" }, root);
  for (const root of roots) {
    // A fresh database for each run.
    const pg = await postgresBackend();
    if (pg) await endToEndBackend(pg, root);
  }
}

/** utime + stime of a process, in seconds (Linux `/proc`). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of stat(5); the slice starts at field 3.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function idle(): Promise<void> {
  const seconds = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
  const settle = Number(process.env.BENCH_IDLE_SETTLE_SECONDS ?? 30);
  console.log(`idle server: CPU over ${seconds} s after ${settle} s of start-up, production build`);
  const roots = [...(process.env.BENCH_COMPARE ? [path.resolve(process.env.BENCH_COMPARE)] : []), ROOT];
  for (const name of ["pglite", "postgres"] as const)
    for (const root of roots) {
      const backend = name === "pglite" ? { name } : await postgresBackend();
      if (!backend) continue;
      const server = await startServer(backend, {}, root);
      try {
        await new Promise((r) => setTimeout(r, settle * 1000));
        const before = cpuSeconds(server.pid);
        await new Promise((r) => setTimeout(r, seconds * 1000));
        const used = cpuSeconds(server.pid) - before;
        const label = `${backend.name}${root === ROOT ? "" : ` (${path.basename(root)})`}`.padEnd(28);
        console.log(
          `${label} idle: ${used.toFixed(2)} s of CPU in ${seconds} s = ${((100 * used) / seconds).toFixed(2)}% of a core  load ${load()}`,
        );
      } finally {
        await server.stop();
      }
    }
}

const MODE = process.argv[2] ?? "drain";
if (MODE === "e2e" && !process.env.BENCH_BACKEND) {
  await endToEnd();
} else if (MODE === "idle" && !process.env.BENCH_BACKEND) {
  await idle();
} else if (process.env.BENCH_BACKEND) {
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
