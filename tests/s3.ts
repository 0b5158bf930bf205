import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import S3rver from "@20minutes/s3rver";

interface CanonicalRequest {
  uri: string;
  querystring: string;
  headers: Record<string, string | undefined>;
}

/**
 * Two canonicalization bugs of s3rver's SigV4 check, fixed the way S3 computes it, so that the
 * AWS SDK's correct signatures verify: the canonical URI is the path as sent (the SDK sends
 * bucket-level requests such as ListObjectsV2 as `/bucket/`, s3rver drops the slash), and query
 * values are RFC 3986-encoded (`'`, `(`, `)`, `*`, `!` as %XX, which s3rver leaves bare). Everything
 * else (signed headers, expiry, the signature itself) is s3rver's own check.
 */
const RAW_PATH = "x-svc-test-raw-path";
let patched = false;
function patchCanonicalization(): void {
  if (patched) return;
  patched = true;
  const v4 = createRequire(import.meta.url)("@20minutes/s3rver/lib/signature/v4.js") as {
    getStringToSign: (req: CanonicalRequest, sig: unknown) => string;
  };
  const original = v4.getStringToSign;
  v4.getStringToSign = (req, sig) => {
    const raw = req.headers[RAW_PATH];
    const uri = raw?.endsWith("/") && !req.uri.endsWith("/") ? `${req.uri}/` : req.uri;
    const querystring = req.querystring.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    return original({ ...req, uri, querystring }, sig);
  };
}

/** An S3-compatible server on loopback (s3rver: SigV4 checks, presigned URLs, expiry). */
export interface LocalS3 {
  endpoint: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  stop(): Promise<void>;
}

export async function startS3(bucket = "svc-test"): Promise<LocalS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "svc-s3rver-"));
  patchCanonicalization();
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  server.middleware.unshift(
    async (ctx: { path: string; request: { headers: Record<string, string> } }, next: () => Promise<void>) => {
      ctx.request.headers[RAW_PATH] = ctx.path;
      await next();
    },
  );
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    // s3rver's built-in account.
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    async stop() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
