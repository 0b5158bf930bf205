import net from "node:net";
import type { Readable } from "node:stream";
import { ScanError, type Scanner, type ScanVerdict } from "./types";

/**
 * ClamAV's clamd over its Unix socket or TCP, with the INSTREAM command: the bytes go as chunks
 * of `<4-byte big-endian length><data>`, ended by a zero-length chunk; clamd answers
 * `stream: OK`, `stream: <signature> FOUND`, or `<reason> ERROR` (for instance when the stream is
 * longer than its StreamMaxLength).
 */
export interface ClamdOptions {
  /** An absolute Unix socket path, or `host:port` (`[::1]:3310` for IPv6). */
  address: string;
  timeoutMs: number;
}

const CHUNK = 64 * 1024;

export function parseClamdAddress(address: string): net.NetConnectOpts {
  if (address.startsWith("/")) return { path: address };
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(address);
  if (!m) throw new Error(`CLAMD_ADDRESS must be a socket path or host:port, got ${JSON.stringify(address)}`);
  return { host: m[1] ?? m[2], port: Number(m[3]) };
}

function describeError(err: NodeJS.ErrnoException): string {
  if (err.code === "EPIPE" || err.code === "ECONNRESET")
    return "closed the connection while receiving the stream (longer than its StreamMaxLength?)";
  return `failed: ${err.message}`;
}

/** Sends one command (and, for INSTREAM, the body) and returns clamd's reply without the NUL. */
function exchange(opts: ClamdOptions, command: string, body?: Uint8Array | Readable): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(parseClamdAddress(opts.address));
    let reply = Buffer.alloc(0);
    let settled = false;
    const finish = (err: Error | null, value?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (body && !(body instanceof Uint8Array)) body.destroy();
      if (err) reject(err);
      else resolve(value ?? "");
    };
    const timer = setTimeout(
      () => finish(new ScanError(`clamd did not answer within ${opts.timeoutMs} ms`)),
      opts.timeoutMs,
    );
    socket.on("data", (chunk: Buffer) => {
      reply = Buffer.concat([reply, chunk]);
      const nul = reply.indexOf(0);
      if (nul >= 0) finish(null, reply.subarray(0, nul).toString("utf8").trim());
    });
    socket.on("end", () =>
      finish(
        reply.length > 0 ? null : new ScanError("clamd closed the connection without an answer"),
        reply.toString("utf8").replace(/\0/g, "").trim(),
      ),
    );
    socket.on("error", (err) => {
      // clamd may close early (size limit) and still have answered; keep its answer if it did.
      if (reply.length > 0) finish(null, reply.toString("utf8").replace(/\0/g, "").trim());
      else finish(new ScanError(`clamd at ${opts.address} ${describeError(err)}`, { cause: err }));
    });
    socket.on("connect", () => {
      void (async () => {
        const write = (data: Uint8Array) =>
          new Promise<void>((ok, fail) => {
            if (settled) return ok();
            socket.write(data, (err) => (err ? fail(err) : ok()));
          });
        try {
          await write(Buffer.from(`z${command}\0`));
          if (body === undefined) return;
          const send = async (data: Uint8Array) => {
            for (let off = 0; off < data.length && !settled; off += CHUNK) {
              const part = data.subarray(off, off + CHUNK);
              const len = Buffer.alloc(4);
              len.writeUInt32BE(part.length);
              await write(Buffer.concat([len, part]));
            }
          };
          if (body instanceof Uint8Array) await send(body);
          else
            for await (const chunk of body)
              await send(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
          await write(Buffer.alloc(4));
        } catch (err) {
          if (reply.length === 0 && !settled) {
            // Give clamd a moment to explain why it stopped reading before reporting the write error.
            setTimeout(
              () => finish(new ScanError(`clamd at ${opts.address} ${describeError(err as Error)}`, { cause: err })),
              200,
            );
          }
        }
      })();
    });
  });
}

export function parseInstreamReply(reply: string): ScanVerdict | null {
  const m = /^stream: (.+) FOUND$/.exec(reply);
  if (m?.[1]) return { status: "infected", signature: m[1], engine: "clamd" };
  if (reply === "stream: OK") return { status: "clean", engine: "clamd" };
  return null;
}

export function clamdScanner(opts: ClamdOptions): Scanner {
  return {
    kind: "clamd",
    async scan(body) {
      const reply = await exchange(opts, "INSTREAM", body);
      const verdict = parseInstreamReply(reply);
      if (!verdict) throw new ScanError(`clamd could not scan the stream: ${reply || "no answer"}`);
      return verdict;
    },
    async describe() {
      const version = await exchange(opts, "VERSION").catch(() => null);
      return { kind: "clamd", version, detail: opts.address };
    },
  };
}
