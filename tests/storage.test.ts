import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type FilesystemStorage,
  filesystemStorage,
  type SignedRequestFailure,
} from "@/lib/providers/storage/filesystem";
import { s3Storage } from "@/lib/providers/storage/s3";
import { sweepOrphans } from "@/lib/providers/storage/sweep";
import { type Storage, StorageLimitError } from "@/lib/providers/storage/types";
import { type LocalS3, startS3 } from "./s3";

/**
 * One suite, both adapters: the filesystem adapter (its signed URLs served by a loopback HTTP
 * server that does what the app's storage route does) and the S3 adapter against s3rver on
 * loopback. What differs is tested below the shared suite.
 */
let s3: LocalS3;
let fsRoot: string;
let fsStore: FilesystemStorage;
let appServer: http.Server;
const secret = randomBytes(32);

beforeAll(async () => {
  s3 = await startS3();
  fsRoot = fs.mkdtempSync(path.join(os.tmpdir(), "svc-storage-"));
  appServer = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://x");
      const key = decodeURIComponent(url.pathname.replace(/^\/storage\//, ""));
      const fail = (result: SignedRequestFailure) => {
        req.resume();
        res.writeHead(result.status, { "content-type": "application/json", connection: "close" });
        res.end(JSON.stringify({ error: { code: result.code, message: result.message } }));
      };
      if (req.method === "PUT") {
        const result = await fsStore.acceptSignedPut({
          key,
          query: url.searchParams,
          header: (n) => (req.headers[n] as string | undefined) ?? null,
          body: req,
        });
        if (!result.ok) return fail(result);
        res.writeHead(200);
        res.end();
      } else {
        const result = await fsStore.openSignedGet(key, url.searchParams);
        if (!result.ok) return fail(result);
        res.writeHead(200, result.headers);
        result.body.pipe(res);
      }
    })().catch((err: Error) => {
      res.writeHead(500);
      res.end(err.message);
    });
  });
  await new Promise<void>((resolve) => appServer.listen(0, "127.0.0.1", resolve));
  const address = appServer.address();
  const base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  fsStore = filesystemStorage({
    root: fsRoot,
    secret: async () => secret,
    uploadBaseUrl: () => base,
    downloadBaseUrl: () => base,
  });
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => appServer.close(() => resolve()));
  await s3.stop();
  fs.rmSync(fsRoot, { recursive: true, force: true });
});

const adapters: [string, () => Storage][] = [
  ["filesystem", () => fsStore],
  [
    "s3",
    () =>
      s3Storage({
        bucket: s3.bucket,
        region: "us-east-1",
        endpoint: s3.endpoint,
        forcePathStyle: true,
        credentials: s3.credentials,
      }),
  ],
];

const uid = () => randomBytes(6).toString("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe.each(adapters)("storage adapter: %s", (_name, make) => {
  test("put, get, head, stream, delete; missing objects are null and deleting them is fine", async () => {
    const store = make();
    const key = `t/${uid()}/a.bin`;
    const bytes = randomBytes(100_000);
    const info = await store.put(key, bytes, {
      contentType: "application/pdf",
      metadata: { filename: "r%C3%A9sum%C3%A9.pdf" },
    });
    expect(info).toMatchObject({
      key,
      size: bytes.length,
      contentType: "application/pdf",
      metadata: { filename: "r%C3%A9sum%C3%A9.pdf" },
    });
    expect(info.lastModified.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect((await store.get(key))?.equals(bytes)).toBe(true);
    expect(await store.head(key)).toMatchObject({ size: bytes.length, contentType: "application/pdf" });
    const streamed = await store.stream(key);
    expect(streamed?.info.size).toBe(bytes.length);
    const chunks: Buffer[] = [];
    for await (const c of streamed?.body ?? []) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);

    await store.delete(key);
    expect(await store.get(key)).toBeNull();
    expect(await store.head(key)).toBeNull();
    expect(await store.stream(key)).toBeNull();
    await store.delete(key);
    await store.delete(`t/${uid()}/never`);
  });

  test("a stream body is stored; one longer than maxBytes fails and stores nothing", async () => {
    const store = make();
    const key = `t/${uid()}/s`;
    await store.put(key, Readable.from([Buffer.from("hello "), Buffer.from("world")]), { maxBytes: 11 });
    expect((await store.get(key))?.toString()).toBe("hello world");
    const big = `t/${uid()}/big`;
    await expect(
      store.put(big, Readable.from([Buffer.alloc(10), Buffer.alloc(10)]), { maxBytes: 15 }),
    ).rejects.toBeInstanceOf(StorageLimitError);
    await expect(store.put(big, Buffer.alloc(20), { maxBytes: 15 })).rejects.toBeInstanceOf(StorageLimitError);
    expect(await store.head(big)).toBeNull();
  });

  test("keys are validated (no traversal, no hidden segments)", async () => {
    const store = make();
    for (const bad of ["../x", "a/../../x", ".meta/x", "a//b", "/abs", "a/.tmp", "", "a b"]) {
      await expect(store.put(bad, Buffer.from("x"))).rejects.toThrow(/invalid storage key/);
    }
  });

  test("move renames bytes with their metadata; a missing source is false", async () => {
    const store = make();
    const from = `uploads/${uid()}`;
    const to = `objects/${uid()}`;
    await store.put(from, Buffer.from("moved"), { contentType: "text/plain", metadata: { filename: "m.txt" } });
    expect(await store.move(from, to)).toBe(true);
    expect(await store.head(from)).toBeNull();
    expect(await store.head(to)).toMatchObject({ size: 5, contentType: "text/plain", metadata: { filename: "m.txt" } });
    expect(await store.move(from, `objects/${uid()}`)).toBe(false);
  });

  test("list returns the keys under a prefix in key order", async () => {
    const store = make();
    const p = `list-${uid()}`;
    for (const k of ["b/2", "a/1", "a/0", "c"]) await store.put(`${p}/${k}`, Buffer.from(k));
    await store.put(`${p}x/other`, Buffer.from("x"));
    expect((await collect(store.list(`${p}/`))).map((o) => o.key)).toEqual([
      `${p}/a/0`,
      `${p}/a/1`,
      `${p}/b/2`,
      `${p}/c`,
    ]);
    expect((await collect(store.list(`${p}/a/`))).map((o) => [o.key, o.size])).toEqual([
      [`${p}/a/0`, 3],
      [`${p}/a/1`, 3],
    ]);
    expect((await collect(store.list(`${p}`))).length).toBe(5);
    expect(await collect(store.list(`nothing-${uid()}/`))).toEqual([]);
  });

  test("presigned PUT: the exact headers store the bytes with their type and metadata", async () => {
    const store = make();
    const key = `uploads/${uid()}`;
    const body = Buffer.from("%PDF-1.7 pretend");
    const up = await store.presignPut({
      key,
      contentType: "application/pdf",
      filename: "Rechnung März.pdf",
      expiresInSeconds: 300,
      size: body.length,
      maxBytes: 1024,
    });
    expect(up.method).toBe("PUT");
    expect(up.headers).toEqual({
      "Content-Type": "application/pdf",
      "x-amz-meta-content-type": "application/pdf",
      "x-amz-meta-filename": "Rechnung%20M%C3%A4rz.pdf",
    });
    expect(up.expiresAt.getTime()).toBeGreaterThan(Date.now() + 290_000);
    const res = await fetch(up.url, { method: "PUT", headers: up.headers, body });
    expect(res.status).toBe(200);
    expect((await store.get(key))?.equals(body)).toBe(true);
    expect(await store.head(key)).toMatchObject({
      contentType: "application/pdf",
      metadata: { "content-type": "application/pdf", filename: "Rechnung%20M%C3%A4rz.pdf" },
    });
  });

  test("presigned PUT refuses a wrong Content-Type, a wrong metadata header, a missing header and another size", async () => {
    const store = make();
    const key = `uploads/${uid()}`;
    const body = Buffer.from("0123456789");
    const up = await store.presignPut({
      key,
      contentType: "image/png",
      filename: "a.png",
      expiresInSeconds: 300,
      size: body.length,
      maxBytes: 100,
    });
    const wrongType = await fetch(up.url, {
      method: "PUT",
      headers: { ...up.headers, "Content-Type": "text/html" },
      body,
    });
    expect(wrongType.status).toBe(403);
    const wrongName = await fetch(up.url, {
      method: "PUT",
      headers: { ...up.headers, "x-amz-meta-filename": "evil.html" },
      body,
    });
    expect(wrongName.status).toBe(403);
    const { "x-amz-meta-content-type": _omit, ...missing } = up.headers;
    expect((await fetch(up.url, { method: "PUT", headers: missing, body })).status).toBe(403);
    const longer = await fetch(up.url, { method: "PUT", headers: up.headers, body: Buffer.concat([body, body]) });
    expect([400, 403, 413]).toContain(longer.status);
    expect(await store.head(key)).toBeNull();
    // The untouched URL still works afterwards.
    expect((await fetch(up.url, { method: "PUT", headers: up.headers, body })).status).toBe(200);
    expect((await store.get(key))?.toString()).toBe("0123456789");
  });

  test("presigned PUT refuses an expired URL", async () => {
    const store = make();
    const key = `uploads/${uid()}`;
    const up = await store.presignPut({
      key,
      contentType: "text/plain",
      filename: "late.txt",
      expiresInSeconds: 1,
      maxBytes: 100,
    });
    await sleep(2100);
    const res = await fetch(up.url, { method: "PUT", headers: up.headers, body: "late" });
    expect(res.status).toBe(403);
    expect(await store.head(key)).toBeNull();
  });

  test("a replayed upload URL never changes an object once it has been moved to its final key", async () => {
    const store = make();
    const upload = `uploads/${uid()}`;
    const final = `objects/${uid()}`;
    const up = await store.presignPut({
      key: upload,
      contentType: "text/plain",
      filename: "a.txt",
      expiresInSeconds: 300,
      maxBytes: 100,
    });
    expect((await fetch(up.url, { method: "PUT", headers: up.headers, body: "clean" })).status).toBe(200);
    expect(await store.move(upload, final)).toBe(true);
    await fetch(up.url, { method: "PUT", headers: up.headers, body: "evil!" });
    expect((await store.get(final))?.toString()).toBe("clean");
  });

  test("presigned GET downloads the bytes with the given name and type, and expires", async () => {
    const store = make();
    const key = `objects/${uid()}`;
    await store.put(key, Buffer.from("a,b\n1,2\n"), { contentType: "text/csv" });
    const dl = await store.presignGet({ key, expiresInSeconds: 60, filename: "zahlen ä.csv", contentType: "text/csv" });
    const res = await fetch(dl.url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("a,b\n1,2\n");
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="zahlen _.csv"; filename*=UTF-8''zahlen%20%C3%A4.csv`,
    );
    const tampered = new URL(dl.url);
    tampered.pathname = tampered.pathname.replace(/[^/]+$/, uid());
    expect((await fetch(tampered)).status).toBeGreaterThanOrEqual(400);
    const short = await store.presignGet({ key, expiresInSeconds: 1 });
    await sleep(2100);
    expect((await fetch(short.url)).status).toBe(403);
    await expect(store.presignGet({ key, expiresInSeconds: 604_801 })).rejects.toThrow(/1\.\.604800/);
    await expect(store.presignGet({ key, expiresInSeconds: 0 })).rejects.toThrow(/1\.\.604800/);
  });

  test("the sweep deletes bytes no owner claims once past the grace period, and keeps the rest", async () => {
    const store = make();
    const prefix = `sweep-${uid()}/`;
    for (const k of ["owned", "orphan-1", "orphan-2"]) await store.put(`${prefix}${k}`, Buffer.from(k));
    const owner = { prefix, owned: async (keys: string[]) => new Set(keys.filter((k) => k.endsWith("owned"))) };
    // Within the grace period nothing is touched (a transaction may be about to commit its row).
    expect(await sweepOrphans(store, [owner], { graceSeconds: 3600 })).toEqual({ scanned: 3, deleted: 0 });
    const later = new Date(Date.now() + 10_000);
    expect(await sweepOrphans(store, [owner], { graceSeconds: 5, now: later, batchSize: 1 })).toEqual({
      scanned: 3,
      deleted: 2,
    });
    expect((await collect(store.list(prefix))).map((o) => o.key)).toEqual([`${prefix}owned`]);
  });
});

describe("filesystem adapter: its own signed URLs", () => {
  test("an upload URL works once: a replay is refused even before the object moves", async () => {
    const key = `uploads/${uid()}`;
    const up = await fsStore.presignPut({
      key,
      contentType: "text/plain",
      filename: "a.txt",
      expiresInSeconds: 300,
      maxBytes: 100,
    });
    expect((await fetch(up.url, { method: "PUT", headers: up.headers, body: "first" })).status).toBe(200);
    const replay = await fetch(up.url, { method: "PUT", headers: up.headers, body: "second" });
    expect(replay.status).toBe(403);
    expect(((await replay.json()) as { error: { code: string } }).error.code).toBe("signature_used");
    expect((await fsStore.get(key))?.toString()).toBe("first");
  });

  test("oversize bodies are refused (413) whether or not Content-Length announces them, and the URL stays usable", async () => {
    const key = `uploads/${uid()}`;
    const up = await fsStore.presignPut({
      key,
      contentType: "application/octet-stream",
      filename: "big.bin",
      expiresInSeconds: 300,
      maxBytes: 64 * 1024,
    });
    const announced = await fetch(up.url, { method: "PUT", headers: up.headers, body: Buffer.alloc(64 * 1024 + 1) });
    expect(announced.status).toBe(413);
    // A chunked body (no Content-Length) is counted while it streams.
    const chunked = await fetch(up.url, {
      method: "PUT",
      headers: up.headers,
      body: Readable.toWeb(Readable.from([Buffer.alloc(40 * 1024), Buffer.alloc(40 * 1024)])) as ReadableStream,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await fsStore.head(key)).toBeNull();
    expect(fs.readdirSync(path.join(fsRoot, ".tmp"))).toEqual([]);
    expect((await fetch(up.url, { method: "PUT", headers: up.headers, body: Buffer.alloc(64 * 1024) })).status).toBe(
      200,
    );
  });

  test("a tampered signature, key, limit or expiry is refused", async () => {
    const key = `uploads/${uid()}`;
    const up = await fsStore.presignPut({
      key,
      contentType: "text/plain",
      filename: "a.txt",
      expiresInSeconds: 300,
      maxBytes: 10,
    });
    for (const [param, value] of [
      ["X-Svc-Max-Bytes", "1000000"],
      ["X-Svc-Expires", String(Math.floor(Date.now() / 1000) + 999_999)],
      ["X-Svc-Signature", "A".repeat(43)],
      ["X-Svc-Nonce", "B".repeat(22)],
    ] as const) {
      const url = new URL(up.url);
      url.searchParams.set(param, value);
      expect((await fetch(url, { method: "PUT", headers: up.headers, body: "x" })).status).toBe(403);
    }
    const other = new URL(up.url);
    other.pathname = `/storage/uploads/${uid()}`;
    expect((await fetch(other, { method: "PUT", headers: up.headers, body: "x" })).status).toBe(403);
    // A download URL's signature is not an upload URL's.
    const dl = await fsStore.presignGet({ key, expiresInSeconds: 60 });
    expect((await fetch(dl.url, { method: "PUT", headers: up.headers, body: "x" })).status).toBe(403);
  });

  test("the internal sweep drops expired single-use markers and abandoned temporary files", async () => {
    const marker = path.join(fsRoot, ".presigned", "C".repeat(22));
    fs.mkdirSync(path.dirname(marker), { recursive: true });
    fs.writeFileSync(marker, "");
    const tmp = path.join(fsRoot, ".tmp", "abandoned");
    fs.mkdirSync(path.dirname(tmp), { recursive: true });
    fs.writeFileSync(tmp, "half");
    expect(await fsStore.sweepInternal(new Date())).toBe(0);
    expect(await fsStore.sweepInternal(new Date(Date.now() + 9 * 86_400_000))).toBeGreaterThanOrEqual(2);
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.existsSync(tmp)).toBe(false);
  });
});
