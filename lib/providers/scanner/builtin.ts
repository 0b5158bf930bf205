import { createHash } from "node:crypto";
import fs from "node:fs";
import type { Readable } from "node:stream";
import { EICAR, ScanError, type Scanner, type ScanVerdict } from "./types";

/**
 * The built-in scanner (the embedded default when no clamd is configured): it flags the EICAR test
 * string anywhere in the bytes and any file whose SHA-256 is on the block list (the canonical
 * EICAR file's hash, plus SCANNER_BLOCKLIST_FILE's lines in ClamAV's `.hsb` shape:
 * `sha256[:size[:name]]`). It is a tripwire, not an antivirus: production runs clamd.
 */
const EICAR_BYTES = Buffer.from(EICAR);
const EICAR_SIGNATURE = "Eicar-Test-Signature";

export interface BlockEntry {
  size: number | null;
  name: string;
}

/** Parses block-list text; bad lines throw with their line number. */
export function parseBlocklist(text: string): Map<string, BlockEntry> {
  const list = new Map<string, BlockEntry>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const [hash = "", size = "", ...name] = line.split(":");
    if (!/^[0-9a-f]{64}$/i.test(hash) || (size !== "" && size !== "*" && !/^\d+$/.test(size)))
      throw new Error(`block list line ${i + 1}: expected sha256[:size[:name]]`);
    list.set(hash.toLowerCase(), {
      size: size === "" || size === "*" ? null : Number(size),
      name: name.join(":") || `Blocklist.${hash.slice(0, 12).toLowerCase()}`,
    });
  });
  return list;
}

export function builtinScanner(opts: { blocklistFile?: string } = {}): Scanner {
  let blocklist: Map<string, BlockEntry> | undefined;
  const load = () => {
    if (!blocklist) {
      blocklist = new Map([
        [createHash("sha256").update(EICAR_BYTES).digest("hex"), { size: EICAR_BYTES.length, name: EICAR_SIGNATURE }],
      ]);
      if (opts.blocklistFile)
        for (const [h, e] of parseBlocklist(fs.readFileSync(opts.blocklistFile, "utf8"))) blocklist.set(h, e);
    }
    return blocklist;
  };
  return {
    kind: "builtin",
    async scan(body: Uint8Array | Readable): Promise<ScanVerdict> {
      const list = load();
      const hash = createHash("sha256");
      let size = 0;
      let tail = Buffer.alloc(0);
      let eicar = false;
      const take = (chunk: Buffer) => {
        hash.update(chunk);
        size += chunk.length;
        if (eicar) return;
        // Keep the last bytes of the previous chunk so a match across a chunk boundary is found.
        const window = tail.length ? Buffer.concat([tail, chunk]) : chunk;
        if (window.includes(EICAR_BYTES)) eicar = true;
        tail = Buffer.from(window.subarray(Math.max(0, window.length - (EICAR_BYTES.length - 1))));
      };
      try {
        if (body instanceof Uint8Array) take(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
        else for await (const chunk of body) take(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
      } catch (err) {
        throw new ScanError(`could not read the bytes to scan: ${(err as Error).message}`, { cause: err });
      }
      if (eicar) return { status: "infected", signature: EICAR_SIGNATURE, engine: "builtin" };
      const hit = list.get(hash.digest("hex"));
      if (hit && (hit.size === null || hit.size === size))
        return { status: "infected", signature: hit.name, engine: "builtin" };
      return { status: "clean", engine: "builtin" };
    },
    describe() {
      return Promise.resolve({
        kind: "builtin" as const,
        version: "builtin-1",
        detail: `EICAR and ${load().size} SHA-256 block-list entries`,
      });
    },
  };
}
