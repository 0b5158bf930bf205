/**
 * The product's server: Next.js (console and /v1 API) behind a plain Node HTTP server, so that
 * the client address comes from the socket, plus the embedded parts that need a long-lived
 * process (the data-directory lock and control channel, periodic housekeeping).
 * `npm run dev` runs it in development mode, `npm start` in production mode after `next build`.
 * With APP_PROCESSES > 1 (PostgreSQL) this process is a cluster primary that forks that many
 * workers, each running everything below (lib/runtime/cluster.ts).
 */
import cluster from "node:cluster";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Server as NetServer } from "node:net";
import nextEnv from "@next/env";

process.env.NEXT_TELEMETRY_DISABLED = "1";
const dev = process.env.NODE_ENV !== "production";
nextEnv.loadEnvConfig(process.cwd(), dev);
// A plain copy of the environment (lib/runtime/process-env.ts: the workflow SDK enumerates it per call).
const { snapshotProcessEnv } = await import("./lib/runtime/process-env");
snapshotProcessEnv();

// PORT=0 asks for any free port. Pick it now, before the typed environment is parsed, so that
// every part of the app (the workflow client's URL of this server included) sees the real port.
if (process.env.PORT === "0") {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  process.env.PORT = String(typeof address === "object" && address ? address.port : 3000);
  await new Promise((resolve) => probe.close(resolve));
}

if (cluster.isPrimary) {
  const { env, publicBaseUrl } = await import("./lib/env");
  if (env.APP_PROCESSES > 1) {
    if (dev)
      throw new Error(
        "APP_PROCESSES > 1 runs the production build: npm run build, then npm start (Next.js development servers cannot share a build directory).",
      );
    const { runClusterPrimary } = await import("./lib/runtime/cluster");
    // Workers get this server's public URL: their own INTERNAL_URL (below) must not become it.
    process.exit(await runClusterPrimary(env.APP_PROCESSES, { PUBLIC_BASE_URL: publicBaseUrl() }));
  }
}

// A cluster worker also listens on a loopback port of its own and makes it its INTERNAL_URL, so the
// calls a process makes to itself (the executor's sync and calls to serve(), the SDK's registration
// and events) reach this process, not a sibling behind the shared port.
const ownServer = cluster.isWorker ? createServer() : null;
if (ownServer) {
  await new Promise<void>((resolve) => ownServer.listen({ port: 0, host: "127.0.0.1", exclusive: true }, resolve));
  const address = ownServer.address();
  process.env.INTERNAL_URL = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

const { env, mailHost, pgliteDir } = await import("./lib/env");
const { log, errorFields } = await import("./lib/log");
const { closeDb, getDbHandle } = await import("./db");
const { DataDirLockedError } = await import("./db/lock");
const { resolveClientIp, stampClientIp } = await import("./lib/http/client-ip");
const { startEmbeddedExecutor, stopEmbeddedExecutor } = await import("./lib/workflows/executor");
const { serveUrl } = await import("./lib/workflows/config");
const { startSmtpReceiver } = await import("./lib/providers/mail/smtp-receiver");
const { startOutboxRelay, stopOutboxRelay } = await import("./lib/outbox/relay");
const { startWebhookDispatcher, stopWebhookDispatcher } = await import("./lib/webhooks/dispatcher");
const { startControlServer } = await import("./lib/runtime/control");
const { READY_MESSAGE } = await import("./lib/runtime/cluster");
const { malformedPath } = await import("./lib/http/path");
const { newRequestId } = await import("./lib/core/invoke");
const { default: next } = await import("next");

try {
  const handle = await getDbHandle();
  log.info("database ready", {
    kind: handle.kind,
    dir: handle.kind === "pglite" ? (pgliteDir() ?? "memory") : undefined,
  });
} catch (err) {
  if (err instanceof DataDirLockedError) {
    log.error(err.message);
    process.exit(1);
  }
  throw err;
}

const dir = env.DATABASE_URL ? null : pgliteDir();
let control: NetServer | null = null;
if (dir) control = await startControlServer(dir);

const app = next({ dev, hostname: env.HOST, port: env.PORT });
await app.prepare();
const nextHandler = app.getRequestHandler();
// In production every route module is loaded before the server listens (next.config.ts turns off
// Next's own preload, which runs in the background after start): otherwise the first seconds of
// traffic share the thread with compiling a few hundred modules, and a load balancer that sees
// `/healthz` answer sends requests to a server that is not ready.
if (!dev) {
  const started = Date.now();
  try {
    // `next()` in a custom server wraps the NextServer whose NextNodeServer owns the preload.
    type NodeServer = { unstable_preloadEntries(): Promise<void> };
    const wrapper = (app as unknown as { server: { getServer(): Promise<NodeServer> } }).server;
    await (await wrapper.getServer()).unstable_preloadEntries();
    log.info("routes loaded", { ms: Date.now() - started });
  } catch (err) {
    log.warn("route preload failed: routes load on first use", errorFields(err));
  }
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const forwarded = req.headers["x-forwarded-for"];
  const ip = resolveClientIp(
    req.socket.remoteAddress,
    Array.isArray(forwarded) ? forwarded.join(",") : forwarded,
    env.TRUST_PROXY,
  );
  stampClientIp(req.headers, ip);
  // Next.js answers a path that does not percent-decode with a bare text 500 before any route
  // runs; refuse it here, in the API's error envelope, for every path.
  const badPath = malformedPath(req.url ?? "/");
  if (badPath) {
    res.writeHead(badPath.status, {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Request-Id": newRequestId(),
    });
    res.end(JSON.stringify(badPath.toBody()));
    return;
  }
  nextHandler(req, res).catch((err: unknown) => {
    log.error("request failed outside the API kernel", errorFields(err));
    if (!res.headersSent) {
      res.writeHead(500, { "Content-Type": "application/json" });
      res.end(
        JSON.stringify({
          error: { type: "api_error", code: "internal_error", message: "An unexpected error occurred.", param: "" },
        }),
      );
    }
  });
}
const server = createServer(handle);
ownServer?.on("request", handle);

await new Promise<void>((resolve) => server.listen(env.PORT, env.HOST, resolve));

// Workflows: the embedded executor syncs the app's functions through its own serve endpoint and
// starts its workers (unless Inngest itself is configured).
try {
  const executor = await startEmbeddedExecutor(serveUrl());
  log.info(executor ? "embedded workflow executor started" : "workflows run on Inngest", {
    workers: executor ? env.WORKFLOW_WORKERS : 0,
  });
} catch (err) {
  log.error("workflow executor failed to start", errorFields(err));
}
// The outbox relay: finishes handoffs a dead process left behind (on the embedded database all of
// them, at once), then takes over entries whose lease expires.
await startOutboxRelay().catch((err: unknown) => log.error("outbox relay failed to start", errorFields(err)));
// Webhook delivery: the dispatcher's loops (deliveries a dead process was making are made again).
await startWebhookDispatcher().catch((err: unknown) =>
  log.error("webhook dispatcher failed to start", errorFields(err)),
);
// The simulated carrier's clock is in the database: callbacks that fell due while no process ran
// (a call ringing when the last process died) are posted now, the rest on its timer. Not awaited:
// they are posted to this server, which listens shortly (one refused is tried again).
if (!env.TWILIO_ACCOUNT_SID)
  void import("./lib/providers/telephony/simulated")
    .then((m) => m.startSimulatedCarrier())
    .catch((err: unknown) => log.error("simulated carrier failed to resume", errorFields(err)));
// Residency: publish the subprocessor list the configuration implies (a change is a new version
// and subprocessor.changed for every organization).
await import("./lib/compliance/residency")
  .then(async ({ publishSubprocessors }) => publishSubprocessors((await getDbHandle()).db))
  .then((list) => log.info("subprocessor list", { version: list.version, changed: list.changed }))
  .catch((err: unknown) => log.error("subprocessor list was not published", errorFields(err)));
// Inbound mail: the built-in SMTP receiver (SMTP_PORT=0 turns it off).
const smtp =
  env.SMTP_PORT > 0
    ? await startSmtpReceiver({
        port: env.SMTP_PORT,
        host: env.SMTP_HOST,
        maxBytes: env.SMTP_MAX_BYTES,
        name: mailHost(),
        maxConnections: env.SMTP_MAX_CONNECTIONS,
        maxConnectionsPerClient: env.SMTP_MAX_CONNECTIONS_PER_CLIENT,
        maxBytesPerClientHour: env.SMTP_MAX_BYTES_PER_CLIENT_HOUR,
      }).catch((err: unknown) => {
        log.error("SMTP receiver failed to start", errorFields(err));
        return null;
      })
    : null;
if (smtp) log.info("SMTP receiver listening", { host: env.SMTP_HOST, port: smtp.port });
log.info("server listening", {
  url: `http://${env.HOST}:${env.PORT}`,
  mode: dev ? "development" : "production",
  ...(ownServer ? { worker: cluster.worker?.id, pid: process.pid } : {}),
});
if (cluster.isWorker) process.send?.(READY_MESSAGE);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("shutting down", { signal });
  // Never hang on the way out: whatever has not closed in 5 s is abandoned.
  setTimeout(() => process.exit(1), 5_000).unref();
  control?.close();
  await smtp?.close().catch(() => {});
  await stopEmbeddedExecutor().catch(() => {});
  await stopOutboxRelay().catch(() => {});
  await stopWebhookDispatcher().catch(() => {});
  server.close();
  server.closeAllConnections();
  ownServer?.close();
  ownServer?.closeAllConnections();
  await app.close().catch(() => {});
  await closeDb().catch(() => {});
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
