/**
 * Broadcast benchmark, PGlite and PostgreSQL: an audience of BENCH_MEMBERS members (default 10,000
 * on PGlite, 100,000 on PostgreSQL) gets one broadcast through the app's real path (queueBroadcast,
 * the fan-out's orchestrator and chunk workers on the embedded executor, the outbox relay handing
 * each message to the embedded transport). Measured: time from the 202 until every member's
 * message is `sent`, as members/s, beside its floor: the same number of message rows written by a
 * plain batched INSERT (1,000 rows per statement) in this process.
 *
 *   npm run bench:broadcast
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { backendEnv, postgresBackend, ROOT } from "./lib";

async function measure(): Promise<void> {
  // As the server does at start (server.ts): the SDK enumerates process.env on every call.
  const { snapshotProcessEnv } = await import("@/lib/runtime/process-env");
  snapshotProcessEnv();
  const { eq, sql } = await import("drizzle-orm");
  const { getDb, closeDb } = await import("@/db");
  const { messages } = await import("@/db/schema");
  const { inngest } = await import("@/inngest/client");
  const { functions } = await import("@/inngest/functions");
  const { bootstrap } = await import("@/lib/organizations/bootstrap");
  const { dispatch } = await import("@/lib/http");
  const { broadcastUuid } = await import("@/lib/audiences/broadcast");
  const { startOutboxRelay, stopOutboxRelay } = await import("@/lib/outbox/relay");
  const { startHarness } = await import("../tests/workflows/harness");
  const backend = process.env.BENCH_BACKEND ?? "";
  const members = Number(process.env.BENCH_MEMBERS ?? (backend === "postgres" ? 100_000 : 10_000));
  const db = await getDb();
  const api = async <T>(secret: string, method: string, url: string, body?: unknown): Promise<T> => {
    const res = await dispatch(
      new Request(`http://localhost${url}`, {
        method,
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const json = (await res.json()) as T;
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const org = await bootstrap(db, { email: `bench-${Date.now()}@example.test`, orgName: "Broadcast bench" });
  const { inbox } = await api<{ inbox: { id: string; address: string } }>(org.secret, "POST", "/v1/inboxes", {
    address: `bench-${Date.now()}@svc.localhost`,
  });
  const { list: audience } = await api<{ list: { id: string } }>(org.secret, "POST", "/v1/audiences", {
    name: "Bench",
  });
  for (let i = 0; i < members; i += 2000) {
    await api(org.secret, "POST", `/v1/audiences/${audience.id}/members`, {
      members: Array.from({ length: Math.min(2000, members - i) }, (_, j) => ({
        email: `m${String(i + j).padStart(7, "0")}@example.com`,
      })),
    });
  }

  // Floor: the same number of message rows, plain batched INSERTs.
  const floorStarted = performance.now();
  for (let i = 0; i < members; i += 1000) {
    const now = new Date();
    await db.insert(messages).values(
      Array.from({ length: Math.min(1000, members - i) }, (_, j) => ({
        orgId: org.organization.id,
        inboxId: inbox.id,
        direction: "outbound" as const,
        status: "sent" as const,
        channel: "email" as const,
        fromAddress: inbox.address,
        to: [`f${i + j}@example.com`],
        cc: [],
        bcc: [],
        subject: "Floor",
        textBody: "Hello",
        messageIdHeader: `<floor-${i + j}@bench>`,
        references: [],
        receivedAt: now,
      })),
    );
  }
  const floorRate = members / ((performance.now() - floorStarted) / 1000);

  const h = await startHarness({ workers: Number(process.env.WORKFLOW_WORKERS ?? 4), pollMs: 200 });
  await h.serveApp(inngest, functions);
  h.executor.start();
  await startOutboxRelay();
  const started = performance.now();
  const queued = await api<{ id: string }>(org.secret, "POST", `/v1/audiences/${audience.id}/send`, {
    inboxId: inbox.id,
    subject: "Bench",
    text: "Hello from the benchmark",
  });
  const id = broadcastUuid(queued.id) ?? "";
  let madeAt = 0;
  for (;;) {
    const [r] = await db
      .select({
        made: sql<number>`count(*)`.mapWith(Number),
        sent: sql<number>`count(*) filter (where ${messages.status} = 'sent')`.mapWith(Number),
      })
      .from(messages)
      .where(eq(messages.broadcastId, id));
    if (!madeAt && (r?.made ?? 0) >= members) madeAt = performance.now();
    if ((r?.sent ?? 0) >= members) break;
    if (performance.now() - started > 3_600_000) throw new Error(`broadcast not done: ${JSON.stringify(r)}`);
    await new Promise((res) => setTimeout(res, 200));
  }
  const seconds = (performance.now() - started) / 1000;
  const rate = members / seconds;
  console.log(
    `${backend.padEnd(9)} ${members} members: every message sent after ${seconds.toFixed(1)} s (${rate.toFixed(0)} members/s; all made after ${((madeAt - started) / 1000).toFixed(1)} s)   plain batched INSERT of the rows ${floorRate.toFixed(0)} rows/s   (${((100 * rate) / floorRate).toFixed(1)}%)`,
  );
  await stopOutboxRelay();
  await h.close();
  await closeDb();
}

if (process.env.BENCH_BACKEND) {
  await measure();
} else {
  console.log("broadcast benchmark");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-broadcast-"));
  const backends = [{ name: "pglite" as const }, ...[await postgresBackend()].filter((b) => b !== null)];
  for (const backend of backends) {
    const env: NodeJS.ProcessEnv = {
      ...backendEnv(backend, path.join(dataDir, backend.name)),
      NODE_ENV: "test",
      BENCH_BACKEND: backend.name,
      OUTBOX_DIR: path.join(dataDir, "outbox"),
      INNGEST_SIGNING_KEY: "signkey-bench-00112233445566778899aabbccddeeff",
    };
    const r = spawnSync(process.execPath, ["--import", "tsx", "bench/broadcast.ts"], {
      cwd: ROOT,
      env,
      stdio: "inherit",
    });
    if (r.status !== 0) process.exitCode = 1;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
