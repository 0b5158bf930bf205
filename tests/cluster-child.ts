/**
 * One app process for the cluster test (tests/cluster.test.ts), on the PostgreSQL database its
 * environment names: the /v1 API through the real dispatcher behind an HTTP listener (client
 * address stamped as server.ts stamps it), the webhook dispatcher, and the embedded executor
 * driving a test app whose function `who` (global concurrency 3) reports, from its one step, which
 * process ran it and when. Prints {"url", "pid"} once everything runs, then one {"ran"} line per
 * step execution; runs until killed.
 *   argv: <appId>  the test app's id (the same in every process, as one app's servers share it)
 */
import { createServer } from "node:http";
import { Inngest } from "inngest";
import { resolveClientIp, stampClientIp } from "@/lib/http/client-ip";
import { dispatch } from "@/lib/http";
import { workflowKeys } from "@/lib/workflows/config";
import { startWebhookDispatcher } from "@/lib/webhooks/dispatcher";
import { startHarness } from "./workflows/harness";

const say = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);
const appId = process.argv[2] ?? "cluster-test";

const server = createServer((req, res) => {
  void (async () => {
    stampClientIp(req.headers, resolveClientIp(req.socket.remoteAddress, undefined, 0));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const response = await dispatch(
      new Request(new URL(req.url ?? "/", "http://127.0.0.1"), { method: req.method, headers, body }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  })().catch((err: unknown) => {
    res.writeHead(500).end(String(err));
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const address = server.address();

// Two workers per process against the function's concurrency of 3: a busy process re-claims a freed
// slot before an idle one looks, so with more workers than the limit one process could run every
// run (seen once in CI); with two, the third slot is the other process's.
const h = await startHarness({ workers: 2, pollMs: 200 });
const keys = workflowKeys();
const client = new Inngest({
  id: appId,
  isDev: false,
  eventKey: keys.eventKey,
  signingKey: keys.signingKey,
  baseUrl: `${h.origin}/`,
});
const who = client.createFunction(
  { id: "who", concurrency: 3, triggers: [{ event: "cluster/who" }] },
  async ({ step, runId }) =>
    step.run("mark", async () => {
      const start = Date.now();
      await new Promise((r) => setTimeout(r, 150));
      say({ ran: runId, pid: process.pid, start, end: Date.now() });
      return { pid: process.pid };
    }),
);
await h.serveApp(client, [who]);
h.executor.start();
await startWebhookDispatcher();
say({ url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`, pid: process.pid });
