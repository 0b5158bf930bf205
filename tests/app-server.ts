import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { callRaw } from "./harness";

/**
 * The app's route modules behind a real HTTP listener on a random port, in the test process (so
 * the in-memory database is the tests' own): what out-of-process clients — the MCP SDK client and
 * the conformance runner, the typed SDK over fetch, the CLI as a child process — talk to. Requests
 * go through the same route handlers Next.js serves (via the harness, which stamps the client
 * address as `server.ts` does); responses stream back as they are written.
 */
export interface AppServer {
  url: string;
  close(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface AppServerOptions {
  /**
   * An `Authorization` value added to requests that carry none: for clients that cannot be given a
   * key (the MCP conformance runner), like a client configured with one.
   */
  defaultAuthorization?: string;
}

export async function startAppServer(options: AppServerOptions = {}): Promise<AppServer> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        const body = req.method === "GET" || req.method === "HEAD" ? undefined : await readAll(req);
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
        if (options.defaultAuthorization && !headers.authorization)
          headers.authorization = options.defaultAuthorization;
        const url = `http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`;
        const response = await callRaw(req.method ?? "GET", url, {
          headers,
          rawBody: body?.length ? body.toString("utf8") : undefined,
          ip: req.socket.remoteAddress ?? "127.0.0.1",
        });
        const out: Record<string, string> = {};
        response.headers.forEach((v, k) => (out[k] = v));
        res.writeHead(response.status, out);
        if (response.body) Readable.fromWeb(response.body as WebReadableStream).pipe(res);
        else res.end();
      } catch (err) {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(err instanceof Error ? err.stack : String(err));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
