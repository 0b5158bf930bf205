import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** Port of the tests' DNS server; override with TEST_DNS_PORT if it is taken. */
const DNS_PORT = Number(process.env.TEST_DNS_PORT ?? 15353);

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./", import.meta.url)) } },
  test: {
    include: ["tests/**/*.test.ts"],
    globalSetup: ["tests/global-setup.ts"],
    setupFiles: ["tests/setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // PGlite in memory per worker unless DATABASE_URL points the suite at PostgreSQL.
    env: {
      NODE_ENV: "test",
      PGLITE_DIR: process.env.PGLITE_DIR ?? "memory://",
      LOG_LEVEL: process.env.LOG_LEVEL ?? "error",
      NEXT_TELEMETRY_DISABLED: "1",
      // Test files run as parallel processes; on PostgreSQL their executors share one queue and may
      // call each other's serve() endpoints, so they share a signing key, as production processes must.
      INNGEST_SIGNING_KEY: "signkey-test-5d41402abc4b2a76b9719d911017c592",
      // The loopback DNS server the global setup starts (tests/dns-server.ts) and its zone file.
      DNS_SERVERS: `127.0.0.1:${DNS_PORT}`,
      DNS_TEST_ZONE: path.join(os.tmpdir(), `svc-test-${process.pid}.zone`),
      STORAGE_DIR: path.join(os.tmpdir(), `svc-test-storage-${process.pid}`),
      OUTBOX_DIR: path.join(os.tmpdir(), `svc-test-outbox-${process.pid}`),
    },
    reporters: ["default"],
  },
});
