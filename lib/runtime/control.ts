import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { CONTROL_SOCKET } from "@/db/lock";
import { getDb } from "@/db";
import { errorFields, log } from "@/lib/log";
import { runCommand } from "./commands";

/**
 * The loopback control channel: a Unix socket inside the data directory (mode 0600, in a 0700
 * directory), so only someone who could read the database files can use it. While a server owns
 * the embedded database, the CLI sends its commands here instead of opening the same files.
 * Protocol: one JSON line `{command, args}` in, one JSON line `{ok, result | error}` out.
 */
export function controlSocketPath(dataDir: string): string {
  return path.join(dataDir, CONTROL_SOCKET);
}

export async function startControlServer(dataDir: string): Promise<net.Server> {
  const socketPath = controlSocketPath(dataDir);
  fs.rmSync(socketPath, { force: true });
  const server = net.createServer((conn) => {
    let buffer = "";
    conn.setEncoding("utf8");
    conn.on("data", (chunk: string) => {
      buffer += chunk;
      if (buffer.length > 65_536) conn.destroy();
      const newline = buffer.indexOf("\n");
      if (newline < 0) return;
      const line = buffer.slice(0, newline);
      void (async () => {
        let reply: unknown;
        try {
          const { command, args } = JSON.parse(line) as { command: string; args: unknown };
          log.info("control command", { command });
          reply = { ok: true, result: await runCommand(await getDb(), command, args) };
        } catch (err) {
          log.warn("control command failed", errorFields(err));
          reply = { ok: false, error: err instanceof Error ? err.message : String(err) };
        }
        conn.end(`${JSON.stringify(reply)}\n`);
      })();
    });
    conn.on("error", () => conn.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  server.on("close", () => fs.rmSync(socketPath, { force: true }));
  return server;
}

/** Sends one command to the server owning `dataDir` and returns its result. */
export function sendControlCommand(
  dataDir: string,
  command: string,
  args: unknown,
  timeoutMs = 30_000,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const conn = net.connect(controlSocketPath(dataDir));
    let buffer = "";
    conn.setEncoding("utf8");
    conn.setTimeout(timeoutMs, () => conn.destroy(new Error("The server did not answer in time.")));
    conn.on("connect", () => conn.write(`${JSON.stringify({ command, args })}\n`));
    conn.on("data", (chunk: string) => (buffer += chunk));
    conn.on("error", reject);
    conn.on("end", () => {
      try {
        const reply = JSON.parse(buffer) as { ok: boolean; result?: unknown; error?: string };
        if (reply.ok) resolve(reply.result);
        else reject(new Error(reply.error ?? "command failed"));
      } catch {
        reject(new Error("The server sent an unreadable reply."));
      }
    });
  });
}
