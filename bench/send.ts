/**
 * Messaging benchmark on the built app, PGlite and PostgreSQL:
 *  - `POST /v1/messages`, one external recipient through the embedded transport (MIME, DKIM
 *    signing, outbox write, Delivery outcome), 32 concurrent clients;
 *  - inbound SMTP into one inbox through the built-in receiver (8 pooled SMTP connections).
 *
 *   npm run build && npm run bench:send        # BENCH_REQUESTS=2000 BENCH_SMTP=500
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import nodemailer from "nodemailer";
import { startDnsServer } from "../tests/dns-server";
import { type Backend, bootstrapKey, drive, formatRow, postgresBackend, startServer } from "./lib";

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 2000);
const SMTP_TOTAL = Number(process.env.BENCH_SMTP ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

// Inbound mail is authenticated with SPF/DKIM/DMARC lookups. This machine has no outside DNS, so
// the benchmark answers them from a loopback DNS server with an empty zone (NXDOMAIN at once).
const DNS_PORT = 15400 + Math.floor(Math.random() * 500);
process.env.DNS_TEST_ZONE = path.join(os.tmpdir(), `svc-bench-${process.pid}.zone`);
fs.writeFileSync(process.env.DNS_TEST_ZONE, "");
const dns = await startDnsServer(DNS_PORT);

async function benchBackend(backend: Backend): Promise<void> {
  const smtpPort = 2600 + Math.floor(Math.random() * 300);
  const server = await startServer(backend, {
    SMTP_PORT: String(smtpPort),
    SMTP_MAX_BYTES: "1048576",
    DNS_SERVERS: `127.0.0.1:${DNS_PORT}`,
  });
  try {
    const secret = await bootstrapKey(server);
    const auth = { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" };
    const created = await fetch(`${server.url}/v1/inboxes`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ address: `bench-${Date.now()}@svc.localhost` }),
    });
    const inbox = ((await created.json()) as { inbox: { id: string; address: string } }).inbox;
    let n = 0;
    const sendOne = () =>
      fetch(`${server.url}/v1/messages`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({
          inboxId: inbox.id,
          to: `reader${n++}@example.com`,
          subject: "Benchmark",
          text: "Hello from the benchmark.",
        }),
      });
    await drive(CONCURRENCY, 100, sendOne);
    console.log(formatRow(`${backend.name}  POST /v1/messages`, await drive(CONCURRENCY, TOTAL, sendOne)));

    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: smtpPort,
      secure: false,
      ignoreTLS: true,
      pool: true,
      maxConnections: 8,
      maxMessages: Infinity,
    });
    const latencies: number[] = [];
    const started = performance.now();
    let sent = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (sent < SMTP_TOTAL) {
          sent++;
          const t0 = performance.now();
          await transport.sendMail({
            from: "sender@example.org",
            to: inbox.address,
            subject: `inbound ${sent}`,
            text: "An inbound benchmark message.",
          });
          latencies.push(performance.now() - t0);
        }
      }),
    );
    transport.close();
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
    console.log(
      `${`${backend.name}  SMTP inbound`.padEnd(34)} ${String(latencies.length).padStart(7)} msg  ${(latencies.length / seconds).toFixed(0).padStart(7)} msg/s  p50 ${pct(50).toFixed(2).padStart(7)} ms  p99 ${pct(99).toFixed(2).padStart(7)} ms`,
    );
  } finally {
    await server.stop();
  }
}

console.log(
  `send benchmark: ${TOTAL} sends with ${CONCURRENCY} clients, ${SMTP_TOTAL} inbound SMTP messages, production build`,
);
await benchBackend({ name: "pglite" });
const pg = await postgresBackend();
if (pg) await benchBackend(pg);
await dns.close();
fs.rmSync(process.env.DNS_TEST_ZONE, { force: true });
