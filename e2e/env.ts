import os from "node:os";
import path from "node:path";

/**
 * Where the end-to-end server keeps its state: a fresh directory per run (the config empties it),
 * so the suite starts from a fresh install (the first user creates the first organization).
 */
export const E2E_DIR = path.join(os.tmpdir(), "svc-e2e");
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3107);
export const OUTBOX_DIR = path.join(E2E_DIR, "outbox");
export const SHARED_DOMAIN = "svc.localhost";
