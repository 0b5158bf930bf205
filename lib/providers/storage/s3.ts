import type { Readable } from "node:stream";
import type * as S3Sdk from "@aws-sdk/client-s3";
import type { S3Client, S3ClientConfig } from "@aws-sdk/client-s3";
import type { getSignedUrl as GetSignedUrl } from "@aws-sdk/s3-request-presigner";
import { readAll } from "./filesystem";
import {
  assertKey,
  assertPrefix,
  checkExpiry,
  contentDisposition,
  type ListedObject,
  META_CONTENT_TYPE,
  META_FILENAME,
  type ObjectInfo,
  type Storage,
  StorageLimitError,
} from "./types";

/**
 * The S3 adapter: any S3-compatible service (AWS, MinIO, Ceph, R2, …) through the AWS SDK.
 * Presigned URLs are real SigV4 query-string signatures; an upload URL signs Content-Type, the two
 * `x-amz-meta-*` headers (kept as headers, not hoisted into the query) and, when the size is
 * declared, Content-Length, so the service itself refuses a PUT with other headers or another size.
 */
export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** An S3-compatible endpoint; unset: AWS. */
  endpoint?: string;
  /** The endpoint clients reach, put into presigned URLs (defaults to `endpoint`). */
  publicEndpoint?: string;
  forcePathStyle?: boolean;
  /** Static credentials; unset: the SDK's default chain (environment, profile, instance role, …). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export interface S3Storage extends Storage {
  readonly kind: "s3";
  readonly bucket: string;
}

const UPLOAD_META_HEADERS = [`x-amz-meta-${META_CONTENT_TYPE}`, `x-amz-meta-${META_FILENAME}`];

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404;
}

export function s3Storage(opts: S3StorageOptions): S3Storage {
  const base: S3ClientConfig = {
    region: opts.region,
    forcePathStyle: opts.forcePathStyle ?? false,
    // Flexible checksums would put a checksum of an empty body into presigned PUT URLs.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
  };
  // The SDK is loaded on first use, so processes that never touch S3 do not pay for it.
  let loaded:
    | Promise<{ sdk: typeof S3Sdk; getSignedUrl: typeof GetSignedUrl; client: S3Client; presigner: S3Client }>
    | undefined;
  const load = () =>
    (loaded ??= Promise.all([import("@aws-sdk/client-s3"), import("@aws-sdk/s3-request-presigner")]).then(
      ([sdk, { getSignedUrl }]) => {
        const client = new sdk.S3Client({ ...base, ...(opts.endpoint ? { endpoint: opts.endpoint } : {}) });
        const presigner =
          opts.publicEndpoint && opts.publicEndpoint !== opts.endpoint
            ? new sdk.S3Client({ ...base, endpoint: opts.publicEndpoint })
            : client;
        return { sdk, getSignedUrl, client, presigner };
      },
    ));
  const Bucket = opts.bucket;

  async function head(key: string): Promise<ObjectInfo | null> {
    assertKey(key);
    const { sdk, client } = await load();
    try {
      const out = await client.send(new sdk.HeadObjectCommand({ Bucket, Key: key }));
      return {
        key,
        size: out.ContentLength ?? 0,
        contentType: out.ContentType ?? null,
        metadata: out.Metadata ?? {},
        lastModified: out.LastModified ?? new Date(0),
      };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async function open(key: string) {
    assertKey(key);
    const { sdk, client } = await load();
    try {
      const out = await client.send(new sdk.GetObjectCommand({ Bucket, Key: key }));
      if (!out.Body) throw new Error(`S3 returned no body for ${key}`);
      const info: ObjectInfo = {
        key,
        size: out.ContentLength ?? 0,
        contentType: out.ContentType ?? null,
        metadata: out.Metadata ?? {},
        lastModified: out.LastModified ?? new Date(0),
      };
      return { body: out.Body as Readable, info };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  const adapter: S3Storage = {
    kind: "s3",
    bucket: Bucket,

    async put(key, body, putOpts = {}) {
      assertKey(key);
      let bytes: Uint8Array;
      if (body instanceof Uint8Array) {
        if (putOpts.maxBytes !== undefined && body.length > putOpts.maxBytes)
          throw new StorageLimitError(putOpts.maxBytes);
        bytes = body;
      } else {
        bytes = await readAll(body, putOpts.maxBytes);
      }
      const { sdk, client } = await load();
      await client.send(
        new sdk.PutObjectCommand({
          Bucket,
          Key: key,
          Body: bytes,
          ContentLength: bytes.length,
          ...(putOpts.contentType ? { ContentType: putOpts.contentType } : {}),
          ...(putOpts.metadata ? { Metadata: putOpts.metadata } : {}),
        }),
      );
      const info = await head(key);
      if (!info) throw new Error(`stored object ${key} vanished`);
      return info;
    },

    async get(key) {
      const found = await open(key);
      return found ? readAll(found.body) : null;
    },

    stream: open,

    head,

    async delete(key) {
      assertKey(key);
      const { sdk, client } = await load();
      await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: key }));
    },

    async move(from, to) {
      assertKey(from);
      assertKey(to);
      const { sdk, client } = await load();
      try {
        await client.send(
          new sdk.CopyObjectCommand({ Bucket, Key: to, CopySource: `${Bucket}/${from}`, MetadataDirective: "COPY" }),
        );
      } catch (err) {
        if (isMissing(err)) return false;
        throw err;
      }
      await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: from }));
      return true;
    },

    list(prefix) {
      assertPrefix(prefix);
      return (async function* (): AsyncGenerator<ListedObject> {
        const { sdk, client } = await load();
        let token: string | undefined;
        do {
          const page = await client.send(
            new sdk.ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: 1000 }),
          );
          for (const o of page.Contents ?? []) {
            if (o.Key) yield { key: o.Key, size: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0) };
          }
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
      })();
    },

    async presignPut(target) {
      assertKey(target.key);
      checkExpiry(target.expiresInSeconds);
      const filename = encodeURIComponent(target.filename);
      const { sdk, getSignedUrl, presigner } = await load();
      const command = new sdk.PutObjectCommand({
        Bucket,
        Key: target.key,
        ContentType: target.contentType,
        Metadata: { [META_CONTENT_TYPE]: target.contentType, [META_FILENAME]: filename },
        ...(target.size !== undefined ? { ContentLength: target.size } : {}),
      });
      const expiresAt = new Date(Date.now() + target.expiresInSeconds * 1000);
      const url = await getSignedUrl(presigner, command, {
        expiresIn: target.expiresInSeconds,
        signableHeaders: new Set(["content-type", ...(target.size !== undefined ? ["content-length"] : [])]),
        unhoistableHeaders: new Set(UPLOAD_META_HEADERS),
      });
      return {
        url,
        method: "PUT",
        headers: {
          "Content-Type": target.contentType,
          [UPLOAD_META_HEADERS[0] as string]: target.contentType,
          [UPLOAD_META_HEADERS[1] as string]: filename,
        },
        expiresInSeconds: target.expiresInSeconds,
        expiresAt,
      };
    },

    async presignGet(target) {
      assertKey(target.key);
      checkExpiry(target.expiresInSeconds);
      const { sdk, getSignedUrl, presigner } = await load();
      const command = new sdk.GetObjectCommand({
        Bucket,
        Key: target.key,
        ResponseContentDisposition: contentDisposition(target.disposition ?? "attachment", target.filename),
        ...(target.contentType ? { ResponseContentType: target.contentType } : {}),
        ResponseCacheControl: "private, no-store",
      });
      const expiresAt = new Date(Date.now() + target.expiresInSeconds * 1000);
      return {
        url: await getSignedUrl(presigner, command, { expiresIn: target.expiresInSeconds }),
        expiresInSeconds: target.expiresInSeconds,
        expiresAt,
      };
    },
  };
  return adapter;
}
