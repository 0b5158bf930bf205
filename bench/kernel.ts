/**
 * Kernel benchmark: the built app on PGlite and on PostgreSQL, 32 concurrent clients.
 * `GET /v1/whoami` (API key lookup, scope and rate checks in the database) against `GET /healthz`
 * (Next.js only, no kernel): the difference is the kernel's overhead. On PostgreSQL the server runs
 * as one process and as a cluster of `BENCH_PROCESSES` (default 2, `APP_PROCESSES`), printed side
 * by side: what the second process adds. The load generator is this process (fetch), then wrk
 * (a C client, `BENCH_WRK_SECONDS` each) when installed, on the same machine.
 *
 *   npm run build && npm run bench:kernel            # BENCH_REQUESTS=5000 BENCH_CONCURRENCY=32 BENCH_PROCESSES=2
 *   BENCH_SKIP_PGLITE=1 npm run bench:kernel         # only the PostgreSQL rows (1 and BENCH_PROCESSES processes)
 */
import {
  type Backend,
  bootstrapKey,
  drive,
  formatRow,
  type LoadResult,
  postgresBackend,
  startServer,
  wrkDrive,
} from "./lib";

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 2);
const WRK_SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 10);

type Figures = { whoami: LoadResult; health: LoadResult; wrk: { whoami: LoadResult; health: LoadResult } | null };

async function benchBackend(backend: Backend, processes = 1): Promise<Figures> {
  const server = await startServer(backend, { APP_PROCESSES: String(processes) });
  try {
    const secret = await bootstrapKey(server);
    const whoami = () => fetch(`${server.url}/v1/whoami`, { headers: { Authorization: `Bearer ${secret}` } });
    const health = () => fetch(`${server.url}/healthz`);
    // Warm up both paths (JIT, connection pool, route compilation caches) in every process.
    await drive(CONCURRENCY, 500 * processes, whoami);
    await drive(CONCURRENCY, 500 * processes, health);
    const label = `${backend.name}${processes > 1 ? ` ×${processes}` : ""}`;
    const result: Figures = {
      whoami: await drive(CONCURRENCY, TOTAL, whoami),
      health: await drive(CONCURRENCY, TOTAL, health),
      wrk: null,
    };
    console.log(formatRow(`${label}  GET /v1/whoami`, result.whoami));
    console.log(formatRow(`${label}  GET /healthz (no auth)`, result.health));
    const w = await wrkDrive(
      `${server.url}/v1/whoami`,
      { Authorization: `Bearer ${secret}` },
      WRK_SECONDS,
      CONCURRENCY,
    );
    const h = w && (await wrkDrive(`${server.url}/healthz`, {}, WRK_SECONDS, CONCURRENCY));
    if (w && h) {
      result.wrk = { whoami: w, health: h };
      console.log(formatRow(`${label}  GET /v1/whoami (wrk)`, w));
      console.log(formatRow(`${label}  GET /healthz (wrk)`, h));
    }
    return result;
  } finally {
    await server.stop();
  }
}

const side = (one: LoadResult, many: LoadResult) =>
  `${one.rps.toFixed(0).padStart(6)} req/s (p50 ${one.p50.toFixed(0)} ms) | ${many.rps.toFixed(0).padStart(6)} req/s (p50 ${many.p50.toFixed(0)} ms) | ×${(many.rps / one.rps).toFixed(2)}`;

console.log(`kernel benchmark: ${TOTAL} requests, ${CONCURRENCY} concurrent clients, production build`);
if (process.env.BENCH_SKIP_PGLITE !== "1") await benchBackend({ name: "pglite" });
const pg = await postgresBackend();
if (pg) {
  const one = await benchBackend(pg, 1);
  const many = await benchBackend(pg, PROCESSES);
  console.log(`\npostgres, 1 process | ${PROCESSES} processes (APP_PROCESSES) | ratio`);
  console.log(`GET /v1/whoami  ${side(one.whoami, many.whoami)}`);
  console.log(`GET /healthz    ${side(one.health, many.health)}`);
  if (one.wrk && many.wrk) {
    console.log(`GET /v1/whoami  ${side(one.wrk.whoami, many.wrk.whoami)}  (wrk)`);
    console.log(`GET /healthz    ${side(one.wrk.health, many.wrk.health)}  (wrk)`);
  }
}
