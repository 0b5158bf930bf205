import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * Starts a real clamd for a test: a private configuration whose database directory holds only the
 * repository's signature file (tests/fixtures/clamav/eicar.ndb; no signature download is possible
 * here), listening on a Unix socket and a loopback TCP port. `.ci/run` installs clamav-daemon.
 */
export interface Clamd {
  socket: string;
  tcp: string;
  stop(): Promise<void>;
}

const FIXTURES = path.resolve(__dirname, "fixtures", "clamav");

function findClamd(): string | null {
  for (const candidate of ["/usr/sbin/clamd", "/usr/local/sbin/clamd", "/usr/bin/clamd"])
    if (fs.existsSync(candidate)) return candidate;
  const which = spawnSync("sh", ["-c", "command -v clamd"], { encoding: "utf8" });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : null;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

function ping(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ path: socketPath });
    let reply = "";
    s.setTimeout(1000, () => {
      s.destroy();
      resolve(false);
    });
    s.on("connect", () => s.write("zPING\0"));
    s.on("data", (d) => (reply += d.toString()));
    s.on("close", () => resolve(reply.startsWith("PONG")));
    s.on("error", () => resolve(false));
  });
}

/** A running clamd, or the reason it could not start (the caller skips with it). */
export async function startClamd(opts: { streamMaxLength?: string } = {}): Promise<Clamd | { unavailable: string }> {
  const binary = findClamd();
  if (!binary) return { unavailable: "clamd is not installed (apt-get install -y clamav-daemon)" };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-clamd-"));
  fs.mkdirSync(path.join(dir, "db"));
  for (const file of fs.readdirSync(FIXTURES)) fs.copyFileSync(path.join(FIXTURES, file), path.join(dir, "db", file));
  const socket = path.join(dir, "clamd.sock");
  const port = await freePort();
  fs.writeFileSync(
    path.join(dir, "clamd.conf"),
    [
      `DatabaseDirectory ${path.join(dir, "db")}`,
      `LocalSocket ${socket}`,
      `TCPSocket ${port}`,
      "TCPAddr 127.0.0.1",
      "Foreground yes",
      `LogFile ${path.join(dir, "clamd.log")}`,
      `StreamMaxLength ${opts.streamMaxLength ?? "10M"}`,
      "SelfCheck 0",
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(binary, ["-c", path.join(dir, "clamd.conf")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  child.on("exit", () => (exited = true));
  const stop = async () => {
    if (!exited && child.pid) {
      const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
      if (!exited) child.kill("SIGKILL");
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 300 && !exited; i++) {
    if (fs.existsSync(socket) && (await ping(socket))) return { socket, tcp: `127.0.0.1:${port}`, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  const log = fs.existsSync(path.join(dir, "clamd.log")) ? fs.readFileSync(path.join(dir, "clamd.log"), "utf8") : "";
  await stop();
  return {
    unavailable: `clamd did not start: ${(stderr + log).trim().split("\n").slice(-3).join(" | ") || "no output"}`,
  };
}
