import type { Readable } from "node:stream";

/**
 * Where stored bytes live. Two adapters implement it: the filesystem (embedded default,
 * STORAGE_DIR) and S3 (any S3-compatible service). Keys are relative paths of segments that start
 * with a letter or digit (`attachments/<org>/<id>`, `objects/<org>/<id>`); a key names the bytes,
 * their content type and their user metadata.
 */
export interface Storage {
  readonly kind: "filesystem" | "s3";
  /** Stores the bytes under `key` (replacing any earlier ones). A stream body is read to its end;
   * with `maxBytes` a longer one fails with StorageLimitError and nothing is stored. */
  put(key: string, body: Uint8Array | Readable, opts?: PutOptions): Promise<ObjectInfo>;
  /** The whole object, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /** The object as a stream, or null when there is none. */
  stream(key: string): Promise<{ body: Readable; info: ObjectInfo } | null>;
  head(key: string): Promise<ObjectInfo | null>;
  /** Deletes the object; deleting a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Moves an object to another key (the source is gone afterwards). False when the source is missing. */
  move(from: string, to: string): Promise<boolean>;
  /** Every object whose key starts with `prefix`, in key order. */
  list(prefix: string): AsyncIterable<ListedObject>;
  /** A URL that accepts one PUT of the bytes, with the exact headers returned. */
  presignPut(target: UploadTarget): Promise<PresignedPut>;
  /** A URL that downloads the object without other credentials until it expires. */
  presignGet(target: DownloadTarget): Promise<PresignedGet>;
}

export interface PutOptions {
  contentType?: string | null;
  /** User metadata (lowercase names; values are stored as given, so encode non-ASCII first). */
  metadata?: Record<string, string>;
  /** Refuse stream bodies longer than this. */
  maxBytes?: number;
}

export interface ObjectInfo {
  key: string;
  size: number;
  contentType: string | null;
  metadata: Record<string, string>;
  lastModified: Date;
}

export interface ListedObject {
  key: string;
  size: number;
  lastModified: Date;
}

export interface UploadTarget {
  key: string;
  /** The stored Content-Type; also sent as `x-amz-meta-content-type`. */
  contentType: string;
  /** Sent (percent-encoded) as `x-amz-meta-filename`. */
  filename: string;
  expiresInSeconds: number;
  /** Declared size: the PUT must carry exactly this many bytes. */
  size?: number;
  /** Largest body accepted (the filesystem adapter enforces it while reading; S3 through `size`). */
  maxBytes: number;
}

export interface PresignedPut {
  url: string;
  method: "PUT";
  /** Must be sent exactly as given. */
  headers: Record<string, string>;
  expiresInSeconds: number;
  expiresAt: Date;
}

export interface DownloadTarget {
  key: string;
  expiresInSeconds: number;
  /** Served as the download's file name and type (Content-Disposition / Content-Type). */
  filename?: string | null;
  contentType?: string | null;
  disposition?: "attachment" | "inline";
}

export interface PresignedGet {
  url: string;
  expiresInSeconds: number;
  expiresAt: Date;
}

/** A stream body longer than `maxBytes`. */
export class StorageLimitError extends Error {
  constructor(readonly maxBytes: number) {
    super(`body exceeds ${maxBytes} bytes`);
    this.name = "StorageLimitError";
  }
}

/** Presigned URLs live 1 second to 7 days (S3's limit, and the API's). */
export const MAX_PRESIGN_SECONDS = 604_800;

/** The metadata names both adapters use for an upload's declared type and file name. */
export const META_CONTENT_TYPE = "content-type";
export const META_FILENAME = "filename";

/** `a/b-c/d.e`: segments of letters, digits, `_`, `-`, `.`, each starting with a letter or digit. */
const KEY = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*(\/[a-zA-Z0-9][a-zA-Z0-9_.-]*)*$/;

export function assertKey(key: string): void {
  if (!KEY.test(key) || key.length > 512) throw new Error(`invalid storage key ${JSON.stringify(key)}`);
}

/** Prefixes for `list` may end with a slash (a folder) or not (any key starting with it). */
export function assertPrefix(prefix: string): void {
  if (prefix !== "" && !KEY.test(prefix.replace(/\/$/, "")))
    throw new Error(`invalid storage prefix ${JSON.stringify(prefix)}`);
}

export function checkExpiry(seconds: number): void {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_PRESIGN_SECONDS)
    throw new Error(`expiresInSeconds must be 1..${MAX_PRESIGN_SECONDS}`);
}

/** RFC 5987 `filename*` for Content-Disposition, plus an ASCII fallback. */
export function contentDisposition(disposition: "attachment" | "inline", filename: string | null | undefined): string {
  if (!filename) return disposition;
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
