import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@\//, replacement: fileURLToPath(new URL("./", import.meta.url)) },
      // next-auth imports `next/server` without an extension, which Node's ESM resolver refuses.
      { find: /^next\/(server|headers|navigation)$/, replacement: "next/$1.js" },
    ],
  },
  test: {
    // Processed by Vite (not loaded by Node directly) so the alias above applies to them.
    server: { deps: { inline: ["next-auth", "@auth/core", "@auth/drizzle-adapter"] } },
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
      // The zone file of the loopback DNS server the global setup starts (tests/dns-server.ts); the
      // setup picks a free port and exports DNS_SERVERS to the workers.
      DNS_TEST_ZONE: path.join(os.tmpdir(), `svc-test-${process.pid}.zone`),
      STORAGE_DIR: path.join(os.tmpdir(), `svc-test-storage-${process.pid}`),
      // Webhooks: loopback receivers over http, a fast retry schedule and a low breaker threshold.
      WEBHOOK_ALLOW_LOOPBACK_HTTP: "true",
      WEBHOOK_RETRY_SCHEDULE: "0,40,40,40,40,40,40,40",
      WEBHOOK_BREAKER_THRESHOLD: "6",
      WEBHOOK_TIMEOUT_MS: "3000",
      OUTBOX_DIR: path.join(os.tmpdir(), `svc-test-outbox-${process.pid}`),
      // The security matrix sends thousands of deliberately bad keys from 127.0.0.1 (and on PostgreSQL
      // the files share one count); tests/auth-throttle.test.ts sets its own low limit.
      API_AUTH_FAILURES_PER_MINUTE: "1000000",
    },
    reporters: ["default"],
  },
});
