import { call, callRaw, type TestOrg } from "./harness";

/**
 * Uploads through the public flow: request an upload URL, PUT the bytes with exactly the returned
 * headers (to the app's storage route for the filesystem backend, over HTTP to S3 otherwise), and
 * finalize.
 */
export async function defaultBucketId(org: TestOrg): Promise<string> {
  const res = await call("GET", "/v1/buckets", { key: org.secret });
  if (res.status !== 200) throw new Error(`list buckets: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.data as { id: string; isDefault: boolean }[]).find((b) => b.isDefault)?.id ?? "";
}

/** A PUT to a presigned URL: the app's storage route in-process, or the real S3 endpoint. */
export async function putBytes(
  url: string,
  headers: Record<string, string>,
  content: string | Buffer,
): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  if (u.pathname.startsWith("/storage/") && !u.searchParams.has("X-Amz-Signature")) {
    const text = typeof content === "string" ? content : content.toString("utf8");
    const res = await callRaw("PUT", `${u.pathname}${u.search}`, {
      headers: { ...headers, "content-length": String(Buffer.byteLength(text)) },
      rawBody: text,
    });
    return { status: res.status, text: await res.text() };
  }
  const res = await fetch(url, {
    method: "PUT",
    headers,
    body: typeof content === "string" ? content : new Uint8Array(content),
  });
  return { status: res.status, text: await res.text() };
}

/** GET of a presigned download URL. */
export async function getBytes(url: string): Promise<{ status: number; text: string; headers: Headers }> {
  const u = new URL(url);
  const res =
    u.pathname.startsWith("/storage/") && !u.searchParams.has("X-Amz-Signature")
      ? await callRaw("GET", `${u.pathname}${u.search}`)
      : await fetch(url);
  return { status: res.status, text: await res.text(), headers: res.headers };
}

export async function uploadObject(
  org: TestOrg,
  opts: { bucketId?: string; filename?: string; content?: string; contentType?: string } = {},
) {
  const bucketId = opts.bucketId ?? (await defaultBucketId(org));
  const content = opts.content ?? "hello, bucket\n";
  const up = await call("POST", `/v1/buckets/${bucketId}/uploads`, {
    key: org.secret,
    body: {
      filename: opts.filename ?? "hello.txt",
      contentType: opts.contentType ?? "text/plain",
      size: Buffer.byteLength(content),
    },
  });
  if (up.status !== 200) throw new Error(`upload: ${up.status} ${JSON.stringify(up.body)}`);
  const put = await putBytes(up.body.uploadUrl, up.body.headers, content);
  if (put.status !== 200) throw new Error(`PUT: ${put.status} ${put.text}`);
  const fin = await call("POST", `/v1/buckets/${bucketId}/objects/${up.body.objectId}/finalize`, { key: org.secret });
  if (fin.status !== 200) throw new Error(`finalize: ${fin.status} ${JSON.stringify(fin.body)}`);
  return { bucketId, objectId: up.body.objectId as string, object: fin.body };
}

/** A clean object without waiting for the workflow: the scan workflow's own step, run directly. */
export async function cleanObject(
  org: TestOrg,
  opts: { bucketId?: string; filename?: string; content?: string; contentType?: string } = {},
) {
  const uploaded = await uploadObject(org, opts);
  const [{ scanObject }, { getDb }] = await Promise.all([import("@/lib/buckets/scan"), import("@/db")]);
  const outcome = await scanObject(await getDb(), uploaded.objectId);
  if (outcome.status !== "clean" && outcome.status !== "done") throw new Error(`scan: ${JSON.stringify(outcome)}`);
  return uploaded;
}

/** A share link of a clean object (created through the API). */
export async function newShareLink(org: TestOrg, body: Record<string, unknown> = {}) {
  const { bucketId, objectId } = await cleanObject(org);
  const res = await call("POST", `/v1/buckets/${bucketId}/objects/${objectId}/share-links`, { key: org.secret, body });
  if (res.status !== 200) throw new Error(`share link: ${res.status} ${JSON.stringify(res.body)}`);
  return { bucketId, objectId, link: res.body };
}
