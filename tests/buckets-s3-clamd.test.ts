import { afterAll, test } from "vitest";
import { env } from "@/lib/env";
import { type Clamd, startClamd } from "./clamd";
import { type LocalS3, startS3 } from "./s3";

/**
 * The same bucket suite on the S3 backend (s3rver on loopback: real SigV4 presigned PUTs and GETs)
 * with a real clamd (INSTREAM, the repository's EICAR signature). The storage and scanner settings
 * are set before the app first uses them, as an operator would set them.
 */
const s3: LocalS3 = await startS3("svc-buckets");
const clamd: Clamd | { unavailable: string } = await startClamd();
afterAll(async () => {
  await s3.stop();
  if ("stop" in clamd) await clamd.stop();
});

// The typed environment is parsed before this file runs (tests/setup.ts); storage() and scanner()
// read it on first use, which is after this.
Object.assign(env, {
  STORAGE_BACKEND: "s3",
  S3_BUCKET: s3.bucket,
  S3_ENDPOINT: s3.endpoint,
  S3_FORCE_PATH_STYLE: true,
  S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
  S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
});
if ("socket" in clamd) Object.assign(env, { CLAMD_ADDRESS: clamd.socket });
// CI installs clamav-daemon (.ci/run): there, a clamd that cannot start is a failure, never a skip.
else if (process.env.CI) throw new Error(clamd.unavailable);
else test.skip(`clamd (the S3 run below uses the built-in scanner): ${clamd.unavailable}`, () => undefined);
const { bucketSuite } = await import("./bucket-suite");
bucketSuite({ backend: "s3", scanner: "socket" in clamd ? "clamd" : "builtin" });
