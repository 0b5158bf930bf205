import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Where the end-to-end server keeps its state: a fresh directory per run, so the suite starts from a
 * fresh install (the first user creates the first organization). Playwright loads the config in
 * its workers too; they inherit the directory chosen by the main process through the environment.
 */
process.env.SVC_E2E_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "svc-e2e-"));
export const E2E_DIR = process.env.SVC_E2E_DIR;
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3107);
export const OUTBOX_DIR = path.join(E2E_DIR, "outbox");
export const SHARED_DOMAIN = "svc.localhost";
/** The loopback port of the Telegram Bot API fake that connections.spec.ts starts (the server's TELEGRAM_API_ROOT). */
export const E2E_TELEGRAM_PORT = Number(process.env.E2E_TELEGRAM_PORT ?? E2E_PORT + 1);
