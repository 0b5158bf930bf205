/**
 * Webhook delivery benchmark, PGlite and PostgreSQL: BENCH_EVENTS ledger appends (default 10,000)
 * to one subscribed endpoint, delivered by the deliver-webhook workflow (embedded executor, the
 * SDK's real serve()) to a loopback receiver. Reports deliveries/s and append → receipt p50/p99.
 *
 *   npm run bench:webhooks            # BENCH_EVENTS=10000 WORKFLOW_WORKERS=8
 */
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { backendEnv, postgresBackend, ROOT } from "./lib";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);

async function measure(): Promise<void> {
  const { getDb, closeDb } = await import("@/db");
  const { inngest } = await import("@/inngest/client");
  const { functions } = await import("@/inngest/functions");
  const { bootstrap } = await import("@/lib/organizations/bootstrap");
  const { appendEvent } = await import("@/lib/events/ledger");
  const { createWebhook } = await import("@/lib/webhooks/service");
  const { expandScopes } = await import("@/lib/auth/scopes");
  const { startHarness } = await import("../tests/workflows/harness");

  const appendedAt = new Map<string, number>();
  const latencies: number[] = [];
  const receiver = createServer((req, res) => {
    const id = String(req.headers["webhook-id"]);
    req.resume();
    req.on("end", () => {
      const t = appendedAt.get(id);
      if (t !== undefined && appendedAt.delete(id)) latencies.push(performance.now() - t);
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const address = receiver.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/hook`;

  const h = await startHarness({ workers: Number(process.env.WORKFLOW_WORKERS ?? 8), pollMs: 200 });
  await h.serveApp(inngest, functions);
  h.executor.start();
  const db = await getDb();
  const boot = await bootstrap(db, { email: `bench-${Date.now()}@example.test`, orgName: "Bench" });
  const principal = { orgId: boot.organization.id, userId: boot.user.id, apiKeyId: boot.apiKey.id, scopes: expandScopes(["admin"]), inboxIds: null, actor: "bench", ip: null, requestId: null };
  await createWebhook(db, principal, { url, events: ["message.received"] });

  const started = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    const t = performance.now();
    const e = await db.transaction((tx) => appendEvent(tx, { orgId: principal.orgId, type: "message.received", partitionKey: `inbox:${i % 20}`, data: { i } }));
    appendedAt.set(e.eventId, t);
  }
  while (latencies.length < EVENTS) {
    if (performance.now() - started > 1_800_000) throw new Error(`only ${latencies.length} of ${EVENTS} delivered`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  console.log(
    `${(process.env.BENCH_BACKEND ?? "").padEnd(9)} ${EVENTS} deliveries  ${(EVENTS / seconds).toFixed(1).padStart(7)} deliveries/s  p50 ${(pct(50) / 1000).toFixed(2)} s  p99 ${(pct(99) / 1000).toFixed(2)} s (append → receipt)`,
  );
  await h.close();
  receiver.close();
  await closeDb();
}

if (process.env.BENCH_BACKEND) {
  await measure();
} else {
  console.log(`webhook benchmark: ${EVENTS} events to one endpoint, ${process.env.WORKFLOW_WORKERS ?? 8} workers`);
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
    const r = spawnSync(process.execPath, ["--import", "tsx", "bench/webhooks.ts"], { cwd: ROOT, env, stdio: "inherit" });
    if (r.status !== 0) process.exitCode = 1;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
