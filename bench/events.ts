/**
 * Event stream benchmark, PGlite and PostgreSQL: paging throughput over BENCH_EVENTS ledger events
 * (default 100,000; 100 per page through the read service) and long-poll wake latency: a reader
 * waiting at the head, an append, the time until the reader has its page (p50/p99).
 *
 *   npm run bench:events
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { backendEnv, postgresBackend, ROOT } from "./lib";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const WAKES = Number(process.env.BENCH_WAKES ?? 200);

async function measure(): Promise<void> {
  const { sql } = await import("drizzle-orm");
  const { getDb, closeDb } = await import("@/db");
  const { bootstrap } = await import("@/lib/organizations/bootstrap");
  const { appendEvent } = await import("@/lib/events/ledger");
  const { readEvents } = await import("@/lib/events/stream");
  const { expandScopes } = await import("@/lib/auth/scopes");
  const db = await getDb();
  const boot = await bootstrap(db, { email: `bench-${Date.now()}@example.test`, orgName: "Bench" });
  const orgId = boot.organization.id;
  const principal = {
    orgId,
    userId: boot.user.id,
    apiKeyId: boot.apiKey.id,
    scopes: expandScopes(["admin"]),
    inboxIds: null,
    actor: "bench",
    ip: null,
    requestId: null,
  };

  // Seed the ledger in bulk (the benchmark measures reading, not appending).
  await db.execute(sql`
    insert into ledger_events (event_id, org_id, type, partition_key, seq, data, occurred_at, created_at)
    select 'evt_bench_' || g, ${orgId}, 'message.received', 'inbox:' || (g % 50), (g / 50) + 1, jsonb_build_object('i', g), now(), now()
    from generate_series(0, ${EVENTS - 1}) g`);
  await db.execute(sql`insert into ledger_partitions (org_id, partition_key, last_seq)
    select ${orgId}, 'inbox:' || p, ${Math.ceil(EVENTS / 50)} from generate_series(0, 49) p`);

  const base = { limit: 100, order: "oldest" as const, wait: 0, tail: false };
  let cursor: string | undefined;
  let read = 0;
  const t0 = performance.now();
  for (;;) {
    const page = await readEvents(db, principal, { ...base, since: cursor });
    read += page.data.length;
    if (!page.pagination.nextCursor) break;
    cursor = page.pagination.nextCursor;
  }
  const seconds = (performance.now() - t0) / 1000;
  const name = (process.env.BENCH_BACKEND ?? "").padEnd(9);
  console.log(
    `${name} paging   ${read} events in ${seconds.toFixed(2)} s  ${(read / seconds).toFixed(0).padStart(8)} events/s`,
  );

  const latencies: number[] = [];
  for (let i = 0; i < WAKES; i++) {
    const head = (await readEvents(db, principal, { ...base, tail: true })).pagination.nextCursor ?? undefined;
    const waiting = readEvents(db, principal, { ...base, since: head, wait: 5 });
    await new Promise((r) => setTimeout(r, 5));
    await db.transaction((tx) =>
      appendEvent(tx, { orgId, type: "message.sent", partitionKey: "inbox:wake", data: { i } }),
    );
    const appended = performance.now();
    const page = await waiting;
    if (page.data.length !== 1) throw new Error("long-poll returned the wrong page");
    latencies.push(performance.now() - appended);
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  console.log(
    `${name} long-poll wake (commit → page)  ${WAKES} wakes  p50 ${pct(50).toFixed(2)} ms  p99 ${pct(99).toFixed(2)} ms`,
  );
  await closeDb();
}

if (process.env.BENCH_BACKEND) {
  await measure();
} else {
  console.log(`events benchmark: paging ${EVENTS} events, ${WAKES} long-poll wakes`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-ev-"));
  const backends = [{ name: "pglite" as const }, ...[await postgresBackend()].filter((b) => b !== null)];
  for (const backend of backends) {
    const env: NodeJS.ProcessEnv = {
      ...backendEnv(backend, path.join(dataDir, backend.name)),
      NODE_ENV: "test",
      BENCH_BACKEND: backend.name,
    };
    const r = spawnSync(process.execPath, ["--import", "tsx", "bench/events.ts"], { cwd: ROOT, env, stdio: "inherit" });
    if (r.status !== 0) process.exitCode = 1;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
