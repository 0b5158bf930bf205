import { Readable } from "node:stream";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { builtinScanner, parseBlocklist } from "@/lib/providers/scanner/builtin";
import { clamdScanner, parseClamdAddress } from "@/lib/providers/scanner/clamd";
import { EICAR, ScanError, type Scanner } from "@/lib/providers/scanner/types";
import { type Clamd, startClamd } from "./clamd";

/** Both scanners flag the EICAR test file and pass clean data; clamd runs for real (tests/clamd.ts). */
const clean = Buffer.from("Quarterly report\nNothing to see here.\n".repeat(1000));
const eicarInZip = () => {
  // The EICAR string inside a larger file, split across stream chunks.
  const bytes = Buffer.concat([Buffer.alloc(70_000, 0x20), Buffer.from(EICAR), Buffer.alloc(10, 0x20)]);
  return Readable.from([bytes.subarray(0, 70_030), bytes.subarray(70_030)]);
};

describe("built-in scanner", () => {
  const scanner = builtinScanner();

  test("flags the EICAR file, the string inside a larger stream across chunks, and passes clean data", async () => {
    expect(await scanner.scan(Buffer.from(EICAR))).toEqual({
      status: "infected",
      signature: "Eicar-Test-Signature",
      engine: "builtin",
    });
    expect(await scanner.scan(eicarInZip())).toMatchObject({ status: "infected" });
    expect(await scanner.scan(clean)).toEqual({ status: "clean", engine: "builtin" });
    expect(await scanner.scan(Readable.from([clean.subarray(0, 100), clean.subarray(100)]))).toMatchObject({
      status: "clean",
    });
    expect(await scanner.scan(new Uint8Array())).toMatchObject({ status: "clean" });
  });

  test("a SHA-256 block list (ClamAV .hsb lines) flags exact files, honouring the size when given", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-blocklist-"));
    const bad = Buffer.from("pretend this is ransomware");
    const other = Buffer.from("another bad file");
    const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
    const file = path.join(dir, "block.hsb");
    fs.writeFileSync(
      file,
      `# comment\n${sha(bad)}:${bad.length}:Svc.Test.Ransom\n${sha(other).toUpperCase()}\n${sha(clean)}:1:Wrong.Size\n`,
    );
    const s = builtinScanner({ blocklistFile: file });
    expect(await s.scan(bad)).toEqual({ status: "infected", signature: "Svc.Test.Ransom", engine: "builtin" });
    expect(await s.scan(Readable.from([other]))).toMatchObject({
      status: "infected",
      signature: `Blocklist.${sha(other).slice(0, 12)}`,
    });
    expect(await s.scan(clean)).toMatchObject({ status: "clean" });
    expect((await s.describe()).detail).toContain("4 SHA-256");
    expect(() => parseBlocklist("nothex:1:x")).toThrow(/line 1/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("a stream that fails while being read is a scan error, never clean", async () => {
    const broken = new Readable({
      read() {
        this.destroy(new Error("disk gone"));
      },
    });
    await expect(scanner.scan(broken)).rejects.toBeInstanceOf(ScanError);
  });
});

test("clamd addresses: socket paths and host:port", () => {
  expect(parseClamdAddress("/run/clamav/clamd.ctl")).toEqual({ path: "/run/clamav/clamd.ctl" });
  expect(parseClamdAddress("127.0.0.1:3310")).toEqual({ host: "127.0.0.1", port: 3310 });
  expect(parseClamdAddress("[::1]:3310")).toEqual({ host: "::1", port: 3310 });
  expect(() => parseClamdAddress("clamd")).toThrow(/CLAMD_ADDRESS/);
});

test("clamd that is not running is a scan error (the object would end `failed`, not `clean`)", async () => {
  const s = clamdScanner({ address: path.join(os.tmpdir(), `no-clamd-${process.pid}.sock`), timeoutMs: 2000 });
  await expect(s.scan(Buffer.from("x"))).rejects.toBeInstanceOf(ScanError);
  expect(await s.describe()).toMatchObject({ kind: "clamd", version: null });
});

describe("clamd (real daemon, INSTREAM)", () => {
  let clamd: Clamd | null = null;
  let unavailable = "";
  beforeAll(async () => {
    const started = await startClamd({ streamMaxLength: "1M" });
    if ("unavailable" in started) {
      unavailable = started.unavailable;
      // CI installs clamav-daemon (.ci/run): there, a clamd that cannot start is a failure.
      if (process.env.CI) throw new Error(unavailable);
      console.warn(`SKIPPED clamd tests: ${unavailable}`);
    } else clamd = started;
  }, 60_000);
  afterAll(async () => {
    await clamd?.stop();
  });

  const each = (name: string, fn: (s: Scanner) => Promise<void>) =>
    test(name, async (ctx) => {
      if (!clamd) ctx.skip(unavailable);
      for (const address of [clamd?.socket ?? "", clamd?.tcp ?? ""])
        await fn(clamdScanner({ address, timeoutMs: 30_000 }));
    });

  each("flags EICAR (bytes and a chunked stream) over the socket and TCP", async (s) => {
    expect(await s.scan(Buffer.from(EICAR))).toEqual({
      status: "infected",
      signature: "Svc.Test.EICAR.UNOFFICIAL",
      engine: "clamd",
    });
    expect(await s.scan(eicarInZip())).toMatchObject({ status: "infected" });
  });

  each("passes clean data", async (s) => {
    expect(await s.scan(clean)).toEqual({ status: "clean", engine: "clamd" });
    expect(await s.scan(Readable.from([clean.subarray(0, 10), clean.subarray(10)]))).toMatchObject({ status: "clean" });
  });

  each("a stream over clamd's StreamMaxLength is a scan error, not clean", async (s) => {
    // Over the Unix socket clamd's answer arrives; over TCP its close may reset the connection first.
    await expect(s.scan(Buffer.alloc(2 * 1024 * 1024, 0x41))).rejects.toThrow(/size limit exceeded|StreamMaxLength/i);
  });

  each("describe reports the engine version", async (s) => {
    const info = await s.describe();
    expect(info.kind).toBe("clamd");
    expect(info.version).toMatch(/^ClamAV \d+\.\d+/);
  });
});
