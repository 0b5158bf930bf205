/**
 * Kernel benchmark: the built app on PGlite and on PostgreSQL, 32 concurrent clients.
 * `GET /v1/whoami` (API key lookup, scope and rate checks, two queries) against `GET /healthz`
 * (Next.js only, no kernel): the difference is the kernel's overhead.
 *
 *   npm run build && npm run bench:kernel            # BENCH_REQUESTS=5000 BENCH_CONCURRENCY=32
 */
import { type Backend, bootstrapKey, drive, formatRow, postgresBackend, startServer } from "./lib";

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

async function benchBackend(backend: Backend): Promise<void> {
  const server = await startServer(backend);
  try {
    const secret = await bootstrapKey(server);
    const whoami = () => fetch(`${server.url}/v1/whoami`, { headers: { Authorization: `Bearer ${secret}` } });
    const health = () => fetch(`${server.url}/healthz`);
    // Warm up both paths (JIT, connection pool, route compilation caches).
    await drive(CONCURRENCY, 500, whoami);
    await drive(CONCURRENCY, 500, health);
    console.log(formatRow(`${backend.name}  GET /v1/whoami`, await drive(CONCURRENCY, TOTAL, whoami)));
    console.log(formatRow(`${backend.name}  GET /healthz (no auth)`, await drive(CONCURRENCY, TOTAL, health)));
  } finally {
    await server.stop();
  }
}

console.log(`kernel benchmark: ${TOTAL} requests, ${CONCURRENCY} concurrent clients, production build`);
await benchBackend({ name: "pglite" });
const pg = await postgresBackend();
if (pg) await benchBackend(pg);
