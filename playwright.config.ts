import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { E2E_DIR, E2E_PORT, E2E_TELEGRAM_PORT, OUTBOX_DIR, SHARED_DOMAIN } from "./e2e/env";

/**
 * The console's end-to-end suite: the built app (`next build` first) served by `server.ts` in
 * production mode on a fresh embedded install, driven by Debian's Chromium. `baseURL` is on
 * localhost (Auth.js CSRF cookies are host-bound). Screenshots are kept for failed tests.
 */
const baseURL = `http://localhost:${E2E_PORT}`;

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  // A loaded 2-core machine ran one axe pass of a long journey past 60 s; the budget is per test.
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    baseURL,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    // The first run of the fresh install: the owner, the organization, a key, inboxes and a message.
    { name: "setup", testMatch: /\.setup\.ts$/, use: { ...devices["Desktop Chrome"], channel: undefined } },
    {
      name: "chromium",
      testIgnore: /(phone|dark)\.spec\.ts/,
      dependencies: ["setup"],
      use: { ...devices["Desktop Chrome"], channel: undefined },
    },
    // Dark mode (prefers-color-scheme: dark), axe on every page.
    {
      name: "dark",
      testMatch: /dark\.spec\.ts/,
      dependencies: ["setup"],
      use: { ...devices["Desktop Chrome"], channel: undefined, colorScheme: "dark" },
    },
    // Phone width (390×844), signed in as the setup's owner.
    {
      name: "phone",
      testMatch: /phone\.spec\.ts/,
      dependencies: ["setup"],
      use: {
        ...devices["Desktop Chrome"],
        channel: undefined,
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 3,
        isMobile: true,
        hasTouch: true,
      },
    },
  ],
  webServer: {
    command: "npx tsx server.ts",
    url: `${baseURL}/healthz`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(E2E_PORT),
      HOST: "localhost",
      PGLITE_DIR: path.join(E2E_DIR, "pglite"),
      STORAGE_DIR: path.join(E2E_DIR, "storage"),
      OUTBOX_DIR,
      SHARED_DOMAIN,
      SMTP_PORT: "0",
      WEBHOOK_ALLOW_LOOPBACK_HTTP: "true",
      LOG_LEVEL: "warn",
      // The Bot API fake connections.spec.ts starts on this port (unreachable otherwise: a connect is 502).
      TELEGRAM_API_ROOT: `http://127.0.0.1:${E2E_TELEGRAM_PORT}`,
      // Test letters move only when letters.spec.ts moves them ("Progress one step"): the simulated clock waits an hour.
      LETTER_SIM_STEP_MS: "3600000",
    },
  },
});
