import { beforeAll, describe, expect, test } from "vitest";
import { defaultBucketId } from "./bucket-helpers";
import { call, newOrg, type TestOrg } from "./harness";

/**
 * Text at the edge (issue 22, finding 7): a string that is not well-formed Unicode is a 400 naming
 * its field before any service sees it; hostile nesting is a 400 too. Every operation is covered by
 * tests/fuzz.test.ts; these are the reproductions of the probe.
 */
let org: TestOrg;
let bucketId: string;
beforeAll(async () => {
  org = await newOrg();
  bucketId = await defaultBucketId(org);
});

const json = { "content-type": "application/json" };

describe("text at the edge", () => {
  test('a filename holding a lone surrogate ("\\ud800") is a 400 naming filename, not a 500', async () => {
    // Written by hand so the body carries the escape itself, as a hostile client would send it.
    for (const raw of [
      '{"filename":"\\ud800","contentType":"text/plain","size":5}',
      '{"filename":"a\\udfffb.txt"}',
      '{"filename":"report\\ud83d.pdf","size":10}',
    ]) {
      const res = await call("POST", `/v1/buckets/${bucketId}/uploads`, {
        key: org.secret,
        rawBody: raw,
        headers: json,
      });
      expect(res.status, raw).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_request", param: "filename" });
    }
    // A surrogate pair (an emoji) is well-formed: accepted.
    const ok = await call("POST", `/v1/buckets/${bucketId}/uploads`, {
      key: org.secret,
      rawBody: '{"filename":"smile\\ud83d\\ude00.txt","size":5}',
      headers: json,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  test("JSON nested 10^5 deep is a 400, not a 500", async () => {
    const n = 100_000;
    for (const raw of [`${"[".repeat(n)}${"]".repeat(n)}`, `{"filename":${'{"a":'.repeat(n)}1${"}".repeat(n)}}`]) {
      const res = await call("POST", `/v1/buckets/${bucketId}/uploads`, {
        key: org.secret,
        rawBody: raw,
        headers: json,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });
});
