/**
 * Console benchmark: server render time of the threads and messages list pages with 10,000 rows
 * in the organization (BENCH_ROWS), on the built app, PGlite and PostgreSQL. Requests carry a real
 * Auth.js session cookie; each renders the first page (50 rows) from keyset queries.
 *
 *   npm run build && npm run bench:console            # BENCH_ROWS=10000 BENCH_REQUESTS=200
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { type Backend, backendEnv, drive, formatRow, postgresBackend, ROOT, startServer } from "./lib";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);

async function benchBackend(backend: Backend): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-console-"));
  const pglite = path.join(dataDir, "pglite");
  const seeded = Date.now();
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "bench/console-seed.ts"], {
    cwd: ROOT,
    env: backendEnv(backend, pglite),
    maxBuffer: 1 << 20,
  });
  const seed = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as { cookie: string; rows: number };
  console.log(
    `${backend.name}: seeded ${seed.rows} threads and messages in ${((Date.now() - seeded) / 1000).toFixed(1)} s`,
  );
  const server = await startServer(backend, backend.name === "pglite" ? { PGLITE_DIR: pglite } : {});
  try {
    for (const page of ["/threads", "/messages"]) {
      const get = () => fetch(`${server.url}${page}`, { headers: { cookie: seed.cookie }, redirect: "manual" });
      const first = await get();
      const html = await first.text();
      if (first.status !== 200 || !html.includes("Bench thread"))
        throw new Error(`${page} did not render the seeded rows (status ${first.status})`);
      await drive(CONCURRENCY, 20, get);
      console.log(
        formatRow(`${backend.name}  GET ${page} (${seed.rows} rows)`, await drive(CONCURRENCY, REQUESTS, get)),
      );
    }
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(
  `console benchmark: ${REQUESTS} page renders per list, ${CONCURRENCY} concurrent clients, production build`,
);
await benchBackend({ name: "pglite" });
const pg = await postgresBackend();
if (pg) await benchBackend(pg);
