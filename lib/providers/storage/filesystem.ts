import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  assertKey,
  assertPrefix,
  checkExpiry,
  type DownloadTarget,
  type ListedObject,
  META_CONTENT_TYPE,
  META_FILENAME,
  MAX_PRESIGN_SECONDS,
  type ObjectInfo,
  type PresignedGet,
  type PresignedPut,
  type PutOptions,
  type Storage,
  StorageLimitError,
  type UploadTarget,
} from "./types";
import { userContentHeaders } from "./user-content";

/**
 * The filesystem adapter (embedded default): bytes at `<root>/<key>`, their content type and
 * metadata at `<root>/.meta/<key>.json`. Writes go to `<root>/.tmp` first and are renamed into
 * place, so a reader never sees half an object and a failed write leaves nothing behind.
 *
 * Presigned URLs point at the app itself (`<base>/storage/<key>?…`, served by the storage route)
 * and carry an HMAC-SHA256 signature over the key, expiry, limits and the exact headers, like S3's
 * query-string authentication. An upload URL is good for one successful PUT: its nonce is claimed
 * in `<root>/.presigned/` (exclusive create), released again if that PUT fails.
 */
export interface FilesystemStorageOptions {
  root: string;
  /** The deployment's URL-signing secret. */
  secret: () => Promise<Buffer>;
  /** Base URL of upload URLs (the app's public URL). */
  uploadBaseUrl: () => string;
  /** Base URL of download URLs (a separate user-content origin when one is configured). */
  downloadBaseUrl: () => string;
}

export interface SignedPutRequest {
  key: string;
  query: URLSearchParams;
  header: (name: string) => string | null;
  body: Readable;
}

export type SignedRequestFailure = { ok: false; status: 400 | 403 | 404 | 413; code: string; message: string };
export type SignedPutResult = { ok: true; info: ObjectInfo } | SignedRequestFailure;
export type SignedGetResult =
  | { ok: true; body: Readable; info: ObjectInfo; headers: Record<string, string> }
  | SignedRequestFailure;

export interface FilesystemStorage extends Storage {
  readonly kind: "filesystem";
  readonly root: string;
  /** Serves a PUT to an upload URL: checks signature, expiry, headers, single use and size. */
  acceptSignedPut(req: SignedPutRequest): Promise<SignedPutResult>;
  /** Serves a GET of a download URL. */
  openSignedGet(key: string, query: URLSearchParams): Promise<SignedGetResult>;
  /** Drops single-use markers of expired upload URLs and abandoned temporary files; returns how many. */
  sweepInternal(now?: Date): Promise<number>;
}

/** The headers an upload URL signs, in order. */
const SIGNED_PUT_HEADERS = ["content-type", `x-amz-meta-${META_CONTENT_TYPE}`, `x-amz-meta-${META_FILENAME}`] as const;
const NONCE = /^[A-Za-z0-9_-]{22}$/;

const refuse = (status: SignedRequestFailure["status"], code: string, message: string): SignedRequestFailure => ({
  ok: false,
  status,
  code,
  message,
});

function urlFor(base: string, key: string, params: Record<string, string>): string {
  const url = new URL(`${base.replace(/\/$/, "")}/storage/${key}`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

function sameSignature(expected: string, given: string | null): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Counts bytes through a stream and fails it past `max`. */
function limiter(max: number | undefined, onCount: (n: number) => void): Transform {
  let count = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      count += chunk.length;
      onCount(count);
      if (max !== undefined && count > max) cb(new StorageLimitError(max));
      else cb(null, chunk);
    },
  });
}

export function filesystemStorage(opts: FilesystemStorageOptions): FilesystemStorage {
  const root = path.resolve(opts.root);
  const fileOf = (key: string) => {
    assertKey(key);
    return path.join(root, key);
  };
  const metaOf = (key: string) => path.join(root, ".meta", `${key}.json`);
  const tmpFile = async () => {
    await fs.mkdir(path.join(root, ".tmp"), { recursive: true });
    return path.join(root, ".tmp", `${Date.now()}-${randomBytes(8).toString("hex")}`);
  };
  const markerOf = (nonce: string) => path.join(root, ".presigned", nonce);

  async function readMeta(key: string): Promise<{ contentType: string | null; metadata: Record<string, string> }> {
    try {
      const parsed = JSON.parse(await fs.readFile(metaOf(key), "utf8")) as {
        contentType?: string | null;
        metadata?: Record<string, string>;
      };
      return { contentType: parsed.contentType ?? null, metadata: parsed.metadata ?? {} };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { contentType: null, metadata: {} };
      throw err;
    }
  }

  async function head(key: string): Promise<ObjectInfo | null> {
    let stat;
    try {
      stat = await fs.stat(fileOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR")
        return null;
      throw err;
    }
    if (!stat.isFile()) return null;
    return { key, size: stat.size, lastModified: stat.mtime, ...(await readMeta(key)) };
  }

  /** Writes the body to a temporary file, then metadata and bytes into place. */
  async function write(
    key: string,
    body: Uint8Array | Readable,
    putOpts: PutOptions,
    onCount?: (n: number) => void,
  ): Promise<ObjectInfo> {
    const file = fileOf(key);
    const tmp = await tmpFile();
    try {
      if (body instanceof Uint8Array) {
        if (putOpts.maxBytes !== undefined && body.length > putOpts.maxBytes)
          throw new StorageLimitError(putOpts.maxBytes);
        await fs.writeFile(tmp, body);
      } else {
        await pipeline(body, limiter(putOpts.maxBytes, onCount ?? (() => undefined)), createWriteStream(tmp));
      }
      await fs.mkdir(path.dirname(file), { recursive: true });
      const meta = metaOf(key);
      if (putOpts.contentType || (putOpts.metadata && Object.keys(putOpts.metadata).length > 0)) {
        await fs.mkdir(path.dirname(meta), { recursive: true });
        const metaTmp = `${tmp}.meta`;
        await fs.writeFile(
          metaTmp,
          JSON.stringify({ contentType: putOpts.contentType ?? null, metadata: putOpts.metadata ?? {} }),
        );
        await fs.rename(metaTmp, meta);
      } else {
        await fs.rm(meta, { force: true });
      }
      await fs.rename(tmp, file);
    } catch (err) {
      await fs.rm(tmp, { force: true });
      await fs.rm(`${tmp}.meta`, { force: true });
      throw err;
    }
    const info = await head(key);
    if (!info) throw new Error(`stored object ${key} vanished`);
    return info;
  }

  async function* walk(dir: string, rel: string): AsyncGenerator<ListedObject> {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return;
      throw err;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const key = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) yield* walk(path.join(dir, entry.name), key);
      else if (entry.isFile()) {
        const stat = await fs.stat(path.join(dir, entry.name)).catch(() => null);
        if (stat) yield { key, size: stat.size, lastModified: stat.mtime };
      }
    }
  }

  const putSignature = async (p: {
    key: string;
    expires: string;
    max: string;
    size: string;
    nonce: string;
    headers: readonly string[];
  }) =>
    createHmac("sha256", await opts.secret())
      .update(["svc-storage-put-v1", p.key, p.expires, p.max, p.size, p.nonce, ...p.headers].join("\n"))
      .digest("base64url");
  const getSignature = async (p: {
    key: string;
    expires: string;
    disposition: string;
    filename: string;
    type: string;
  }) =>
    createHmac("sha256", await opts.secret())
      .update(["svc-storage-get-v1", p.key, p.expires, p.disposition, p.filename, p.type].join("\n"))
      .digest("base64url");

  const adapter: FilesystemStorage = {
    kind: "filesystem",
    root,

    put: (key, body, putOpts = {}) => write(key, body, putOpts),

    async get(key) {
      try {
        return await fs.readFile(fileOf(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "EISDIR")
          return null;
        throw err;
      }
    },

    async stream(key) {
      const info = await head(key);
      if (!info) return null;
      // Opened now, so a delete between head and read still serves the bytes that were there.
      const handle = await fs.open(fileOf(key), "r").catch((err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") return null;
        throw err;
      });
      if (!handle) return null;
      return { body: handle.createReadStream(), info };
    },

    head,

    async delete(key) {
      await fs.rm(fileOf(key), { force: true });
      await fs.rm(metaOf(key), { force: true });
    },

    async move(from, to) {
      const source = fileOf(from);
      const target = fileOf(to);
      await fs.mkdir(path.dirname(target), { recursive: true });
      try {
        await fs.rename(source, target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
        throw err;
      }
      try {
        await fs.mkdir(path.dirname(metaOf(to)), { recursive: true });
        await fs.rename(metaOf(from), metaOf(to));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        await fs.rm(metaOf(to), { force: true });
      }
      return true;
    },

    list(prefix) {
      assertPrefix(prefix);
      const slash = prefix.lastIndexOf("/");
      const dirRel = slash >= 0 ? prefix.slice(0, slash) : "";
      const dir = path.join(root, dirRel);
      return (async function* () {
        for await (const obj of walk(dir, dirRel)) if (obj.key.startsWith(prefix)) yield obj;
      })();
    },

    async presignPut(target: UploadTarget): Promise<PresignedPut> {
      assertKey(target.key);
      checkExpiry(target.expiresInSeconds);
      const expiresAt = new Date(Date.now() + target.expiresInSeconds * 1000);
      const headers: Record<string, string> = {
        "Content-Type": target.contentType,
        [`x-amz-meta-${META_CONTENT_TYPE}`]: target.contentType,
        [`x-amz-meta-${META_FILENAME}`]: encodeURIComponent(target.filename),
      };
      const params = {
        key: target.key,
        expires: String(Math.floor(expiresAt.getTime() / 1000)),
        max: String(target.maxBytes),
        size: target.size === undefined ? "" : String(target.size),
        nonce: randomBytes(16).toString("base64url"),
        headers: SIGNED_PUT_HEADERS.map((h) => headers[h === "content-type" ? "Content-Type" : h] ?? ""),
      };
      const query: Record<string, string> = {
        "X-Svc-Expires": params.expires,
        "X-Svc-Max-Bytes": params.max,
        ...(params.size ? { "X-Svc-Size": params.size } : {}),
        "X-Svc-Nonce": params.nonce,
        "X-Svc-Signed-Headers": SIGNED_PUT_HEADERS.join(";"),
        "X-Svc-Signature": await putSignature(params),
      };
      return {
        url: urlFor(opts.uploadBaseUrl(), target.key, query),
        method: "PUT",
        headers,
        expiresInSeconds: target.expiresInSeconds,
        expiresAt,
      };
    },

    async presignGet(target: DownloadTarget): Promise<PresignedGet> {
      assertKey(target.key);
      checkExpiry(target.expiresInSeconds);
      const expiresAt = new Date(Date.now() + target.expiresInSeconds * 1000);
      const p = {
        key: target.key,
        expires: String(Math.floor(expiresAt.getTime() / 1000)),
        disposition: target.disposition ?? "attachment",
        filename: target.filename ?? "",
        type: target.contentType ?? "",
      };
      const query: Record<string, string> = {
        "X-Svc-Expires": p.expires,
        "X-Svc-Disposition": p.disposition,
        ...(p.filename ? { "X-Svc-Filename": p.filename } : {}),
        ...(p.type ? { "X-Svc-Type": p.type } : {}),
        "X-Svc-Signature": await getSignature(p),
      };
      return {
        url: urlFor(opts.downloadBaseUrl(), target.key, query),
        expiresInSeconds: target.expiresInSeconds,
        expiresAt,
      };
    },

    async acceptSignedPut(req) {
      const { key, query } = req;
      try {
        assertKey(key);
      } catch {
        return refuse(404, "resource_not_found", "No such upload URL.");
      }
      const expires = query.get("X-Svc-Expires") ?? "";
      const max = query.get("X-Svc-Max-Bytes") ?? "";
      const size = query.get("X-Svc-Size") ?? "";
      const nonce = query.get("X-Svc-Nonce") ?? "";
      if (
        !/^\d{1,12}$/.test(expires) ||
        !/^\d{1,16}$/.test(max) ||
        !/^\d{0,16}$/.test(size) ||
        !NONCE.test(nonce) ||
        query.get("X-Svc-Signed-Headers") !== SIGNED_PUT_HEADERS.join(";")
      ) {
        return refuse(403, "signature_invalid", "This upload URL is malformed.");
      }
      const headers = SIGNED_PUT_HEADERS.map((h) => req.header(h) ?? "");
      const expected = await putSignature({ key, expires, max, size, nonce, headers });
      if (!sameSignature(expected, query.get("X-Svc-Signature"))) {
        return refuse(
          403,
          "signature_mismatch",
          `The signature does not match. Send exactly the headers returned with the upload URL (${SIGNED_PUT_HEADERS.join(", ")}).`,
        );
      }
      if (Number(expires) * 1000 < Date.now())
        return refuse(403, "signature_expired", "This upload URL has expired. Request a new one.");
      const maxBytes = Number(max);
      const declared = size === "" ? null : Number(size);
      const lengthHeader = req.header("content-length");
      const length = lengthHeader !== null && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
      if (length !== null && length > maxBytes)
        return refuse(
          413,
          "payload_too_large",
          `The body is larger than the ${maxBytes} bytes this upload URL accepts.`,
        );
      if (declared !== null && length !== null && length !== declared)
        return refuse(
          400,
          "invalid_request",
          `This upload URL expects exactly ${declared} bytes (Content-Length ${length}).`,
        );
      // One successful PUT per URL: claim the nonce (exclusive create), release it if this PUT fails.
      await fs.mkdir(path.join(root, ".presigned"), { recursive: true });
      try {
        await (await fs.open(markerOf(nonce), "wx")).close();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST")
          return refuse(403, "signature_used", "This upload URL has already been used. Request a new one.");
        throw err;
      }
      let received = 0;
      try {
        const info = await write(
          key,
          req.body,
          {
            contentType: headers[0] ?? null,
            metadata: { [META_CONTENT_TYPE]: headers[1] ?? "", [META_FILENAME]: headers[2] ?? "" },
            maxBytes: declared ?? maxBytes,
          },
          (n) => (received = n),
        );
        if (declared !== null && info.size !== declared) {
          await adapter.delete(key);
          await fs.rm(markerOf(nonce), { force: true });
          return refuse(
            400,
            "invalid_request",
            `This upload URL expects exactly ${declared} bytes; ${info.size} arrived.`,
          );
        }
        return { ok: true, info };
      } catch (err) {
        await fs.rm(markerOf(nonce), { force: true });
        if (err instanceof StorageLimitError) {
          return declared !== null && declared < maxBytes
            ? refuse(400, "invalid_request", `This upload URL expects exactly ${declared} bytes; more arrived.`)
            : refuse(
                413,
                "payload_too_large",
                `The body is larger than the ${maxBytes} bytes this upload URL accepts (${received} bytes read).`,
              );
        }
        throw err;
      }
    },

    async openSignedGet(key, query) {
      try {
        assertKey(key);
      } catch {
        return refuse(404, "resource_not_found", "No such file.");
      }
      const p = {
        key,
        expires: query.get("X-Svc-Expires") ?? "",
        disposition: query.get("X-Svc-Disposition") ?? "",
        filename: query.get("X-Svc-Filename") ?? "",
        type: query.get("X-Svc-Type") ?? "",
      };
      if (!/^\d{1,12}$/.test(p.expires) || (p.disposition !== "attachment" && p.disposition !== "inline"))
        return refuse(403, "signature_invalid", "This download URL is malformed.");
      if (!sameSignature(await getSignature(p), query.get("X-Svc-Signature")))
        return refuse(403, "signature_mismatch", "This download URL is not valid.");
      if (Number(p.expires) * 1000 < Date.now())
        return refuse(403, "signature_expired", "This download URL has expired.");
      const found = await adapter.stream(key);
      if (!found) return refuse(404, "resource_not_found", "This file no longer exists.");
      const contentType = p.type || found.info.contentType || "application/octet-stream";
      return {
        ok: true,
        body: found.body,
        info: found.info,
        // User content: inline only for safe types (the disposition is signed), sandboxed, never sniffed.
        headers: {
          ...userContentHeaders(contentType, p.filename || null, p.disposition === "inline").headers,
          "Content-Length": String(found.info.size),
        },
      };
    },

    async sweepInternal(now = new Date()) {
      let removed = 0;
      // A marker outlives its URL by a day: the URL expires at most 7 days after the marker is made.
      removed += await removeOlder(
        path.join(root, ".presigned"),
        now.getTime() - (MAX_PRESIGN_SECONDS + 86_400) * 1000,
      );
      // Temporary files of writes that never finished (the process died mid-write).
      removed += await removeOlder(path.join(root, ".tmp"), now.getTime() - 86_400_000);
      return removed;
    },
  };
  return adapter;
}

async function removeOlder(dir: string, cutoff: number): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw err;
  }
  let removed = 0;
  for (const name of names) {
    const stat = await fs.stat(path.join(dir, name)).catch(() => null);
    if (stat && stat.mtime.getTime() < cutoff) {
      await fs.rm(path.join(dir, name), { force: true });
      removed++;
    }
  }
  return removed;
}

/** Reads a stream into memory (bounded). */
export async function readAll(body: Readable, maxBytes?: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += b.length;
    if (maxBytes !== undefined && size > maxBytes) {
      body.destroy();
      throw new StorageLimitError(maxBytes);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}
