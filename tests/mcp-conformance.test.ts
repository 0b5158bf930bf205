import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startAppServer, type AppServer } from "./app-server";
import { newOrg } from "./harness";

/**
 * The `@modelcontextprotocol/conformance` package's server scenarios against the app's `/mcp`
 * over real HTTP. The runner cannot send an API key, so the listener adds an admin key's bearer
 * header to requests without one (as a configured client would). Scenarios that need the SDK's
 * demo tools, prompts or resources are listed, each with its reason, in
 * `tests/fixtures/mcp-conformance-baseline.yml`; the runner fails on any other failure and on a
 * baseline entry that passes.
 */
const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "..");
const BASELINE = path.join(ROOT, "tests/fixtures/mcp-conformance-baseline.yml");
let app: AppServer;
let outDir: string;

beforeAll(async () => {
  const org = await newOrg();
  app = await startAppServer({ defaultAuthorization: `Bearer ${org.secret}` });
  outDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-mcp-conformance-"));
});
afterAll(async () => {
  await app?.close();
  if (outDir) fs.rmSync(outDir, { recursive: true, force: true });
});

test("server scenarios pass, apart from the baseline's", async () => {
  // localhost (not 127.0.0.1): the DNS-rebinding scenario needs a loopback name it can vary.
  const url = `${app.url.replace("127.0.0.1", "localhost")}/mcp`;
  const bin = path.join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
  const result = await run(
    process.execPath,
    [bin, "server", "--url", url, "--expected-failures", BASELINE, "-o", outDir],
    { cwd: ROOT, timeout: 240_000 },
  ).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      code: e.code ?? 1,
      out: `${e.stdout ?? ""}${e.stderr ?? ""}`,
    }),
  );
  expect(result.code, result.out).toBe(0);
}, 300_000);
