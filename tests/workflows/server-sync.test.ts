import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";

/**
 * Issue 10 #1 against the real server process (server.ts, Next.js, the embedded executor): the
 * executor's own signed sync succeeds at start, a `PUT /api/inngest` with a forged Host and no
 * signature is refused, and a scheduled send still runs through the app's own serve endpoint.
 */
const ROOT = path.resolve(__dirname, "../..");
const NODE = process.execPath;
let child: ChildProcess;
let output = "";
let base = "";
let dataDir = "";
let attacker: Server;
let attackerHost = "";
const attackerHits: string[] = [];

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "development",
    LOG_LEVEL: "info",
    NEXT_TELEMETRY_DISABLED: "1",
    SVC_UNLOCKED_DIST_DIR: "1",
    SMTP_PORT: "0",
    ...extra,
  };
  delete env.DATABASE_URL;
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  return env;
}

beforeAll(async () => {
  attacker = createServer((req, res) => {
    attackerHits.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  const a = attacker.address();
  attackerHost = `127.0.0.1:${typeof a === "object" && a ? a.port : 0}`;

  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-sync-"));
  const env = childEnv({
    PGLITE_DIR: path.join(dataDir, "pglite"),
    OUTBOX_DIR: path.join(dataDir, "outbox"),
    PORT: "0",
    HOST: "127.0.0.1",
  });
  delete env.INNGEST_SIGNING_KEY; // the server makes its own keys, as a default install does
  child = spawn(NODE, ["--import", "tsx", "server.ts"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 150_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /"msg":"server listening","url":"(http:\/\/[^"]+)"/.exec(output);
      if (m?.[1]) {
        clearTimeout(timer);
        base = m[1];
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}, 180_000);

afterAll(async () => {
  child?.kill("SIGKILL");
  attacker?.closeAllConnections();
  attacker?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

function raw(method: string, url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...headers, "Content-Length": "0" } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

test("the executor's signed sync succeeds; a forged-Host PUT is refused; a scheduled send still runs", async () => {
  expect(output).toContain('"msg":"embedded workflow executor started"');
  expect(output).not.toContain("workflow executor failed to start");

  expect(await raw("PUT", `${base}/api/inngest`, { Host: attackerHost })).toBe(401);
  expect(
    await raw("PUT", `${base}/api/inngest?deployId=x`, { Host: attackerHost, "X-Forwarded-Host": attackerHost }),
  ).toBe(401);

  const { stdout } = await promisify(execFile)(
    NODE,
    ["--import", "tsx", "cli/svc.ts", "bootstrap", "--email", "sync@example.test", "--org", "Sync", "--json"],
    {
      cwd: ROOT,
      env: childEnv({ PGLITE_DIR: path.join(dataDir, "pglite") }),
      timeout: 60_000,
    },
  );
  const key = (JSON.parse(stdout) as { secret: string }).secret;
  const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
  const { inbox } = (await (
    await fetch(`${base}/v1/inboxes`, {
      method: "POST",
      headers,
      body: JSON.stringify({ address: "sync@svc.localhost" }),
    })
  ).json()) as { inbox: { id: string } };
  // The development server compiles a route on its first request: warm it up with a dry run.
  await fetch(`${base}/v1/messages`, {
    method: "POST",
    headers,
    body: JSON.stringify({ inboxId: inbox.id, to: "later@example.com", text: "x", dryRun: true }),
  });
  const sent = await fetch(`${base}/v1/messages`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      inboxId: inbox.id,
      to: "later@example.com",
      subject: "Later",
      text: "x",
      sendAt: new Date(Date.now() + 3000).toISOString(),
    }),
  });
  const message = (await sent.json()) as { id: string; status: string };
  expect(message.status, JSON.stringify(message)).toBe("scheduled");
  const deadline = Date.now() + 90_000;
  let status = "scheduled";
  while (Date.now() < deadline) {
    const got = (await (await fetch(`${base}/v1/messages/${message.id}`, { headers })).json()) as {
      message: { status: string };
    };
    status = got.message.status;
    // scheduled → queued → sent: wait for a terminal state, not just the first change.
    if (status !== "scheduled" && status !== "queued") break;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(status).toBe("sent");
  expect(attackerHits).toEqual([]);
}, 240_000);
