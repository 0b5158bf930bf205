import { afterAll, beforeAll, expect, test } from "vitest";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { EICAR } from "@/lib/providers/scanner";
import { defaultBucketId, getBytes, putBytes, uploadObject } from "./bucket-helpers";
import { call, callRaw, newInbox, newOrg, type TestOrg } from "./harness";
import { type Harness, startHarness, waitForRun } from "./workflows/harness";

/**
 * Buckets and objects through the API, with the storage backend and scanner the environment
 * chooses: tests/buckets.test.ts runs it on the embedded defaults (filesystem, built-in scanner),
 * tests/buckets-s3-clamd.test.ts on S3 (s3rver on loopback) with a real clamd.
 */
export function bucketSuite(expected: { backend: "filesystem" | "s3"; scanner: "builtin" | "clamd" }): void {
  // The app's functions are registered first (as at server start); the workers start when a test
  // needs scans to run, so the first test sees objects still pending.
  let h: Harness | undefined;
  let started = false;
  const startExecutor = () => {
    if (h && !started) h.executor.start();
    started = true;
    return Promise.resolve();
  };
  beforeAll(async () => {
    h = await startHarness();
    await h.serveApp(inngest, functions);
  });
  afterAll(async () => {
    await h?.close();
  });

  const scanned = (objectId: string) =>
    waitForRun(
      "svc-scan-object",
      (r) => r.status === "completed" && (r.event.data as { objectId: string }).objectId === objectId,
    );

  let org: TestOrg;
  beforeAll(async () => {
    org = await newOrg();
  });

  test("inbound attachments are refused while their scan is pending (409), served once clean", async () => {
    const a = await newInbox(org, "from");
    const b = await newInbox(org, "to");
    const sent = await call("POST", "/v1/messages", {
      key: org.secret,
      body: {
        inboxId: a.id,
        to: b.address,
        text: "files",
        attachments: [
          { filename: "ok.txt", contentBase64: Buffer.from("fine").toString("base64") },
          { filename: "bad.com", contentBase64: Buffer.from(EICAR).toString("base64") },
        ],
      },
    });
    expect(sent.status).toBe(200);
    const list = await call("GET", `/v1/messages?inboxId=${b.id}`, { key: org.secret });
    expect(list.body.messages[0].direction).toBe("inbound");
    const inbound = (await call("GET", `/v1/messages/${list.body.messages[0].id}`, { key: org.secret })).body.message;
    const byName = Object.fromEntries(
      (inbound.attachments as { id: string; filename: string }[]).map((x) => [x.filename, x.id]),
    );
    const pending = await call("GET", `/v1/attachments/${byName["ok.txt"]}/content`, { key: org.secret });
    expect(pending.status).toBe(409);
    expect(pending.body.error.message).toContain("not been scanned");
    expect((await call("GET", `/v1/attachments/${byName["ok.txt"]}/download-url`, { key: org.secret })).status).toBe(
      409,
    );
    // The sender's own (outbound) copy is not gated.
    const outbound = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message;
    expect(
      (await callRaw("GET", `/v1/attachments/${outbound.attachments[0].id}/content`, { key: org.secret })).status,
    ).toBe(200);

    // The inbound bucket holds them as objects.
    const buckets = (await call("GET", "/v1/buckets", { key: org.secret })).body.data as {
      id: string;
      isInbound: boolean;
      objectCount: number;
    }[];
    const inboundBucket = buckets.find((x) => x.isInbound);
    expect(inboundBucket?.objectCount).toBe(2);

    await startExecutor();
    const objects = (await call("GET", `/v1/buckets/${inboundBucket?.id}/objects`, { key: org.secret })).body.data as {
      id: string;
      filename: string;
    }[];
    for (const o of objects) await scanned(o.id);
    const ok = await callRaw("GET", `/v1/attachments/${byName["ok.txt"]}/content`, { key: org.secret });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("fine");
    const bad = await call("GET", `/v1/attachments/${byName["bad.com"]}/content`, { key: org.secret });
    expect(bad.status).toBe(403);
    expect(bad.body.error.message).toContain("infected");
    expect((await call("GET", `/v1/attachments/${byName["bad.com"]}/download-url`, { key: org.secret })).status).toBe(
      403,
    );
    const del = await call("DELETE", `/v1/buckets/${inboundBucket?.id}/objects/${objects[0]?.id}`, { key: org.secret });
    expect(del.status).toBe(403);
  });

  test("every organization has a default and an inbound bucket that cannot be deleted; custom buckets CRUD", async () => {
    const o = await newOrg();
    const list = await call("GET", "/v1/buckets", { key: o.secret });
    expect(
      list.body.data.map((x: { name: string; isDefault: boolean; isInbound: boolean }) => [
        x.name,
        x.isDefault,
        x.isInbound,
      ]),
    ).toEqual([
      ["default", true, false],
      ["inbound", false, true],
    ]);
    for (const x of list.body.data as { id: string }[]) {
      expect(x.id).toMatch(/^buk_[0-9a-f]{32}$/);
      const del = await call("DELETE", `/v1/buckets/${x.id}`, { key: o.secret });
      expect(del.status).toBe(403);
    }
    const created = await call("POST", "/v1/buckets", {
      key: o.secret,
      body: { name: "reports", displayName: "Reports" },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: "bucket",
      name: "reports",
      isDefault: false,
      usedBytes: 0,
      objectCount: 0,
      status: "active",
    });
    expect((await call("POST", "/v1/buckets", { key: o.secret, body: { name: "reports" } })).status).toBe(409);
    // Paginated like every list with `pagination`: the reserved buckets first, then oldest first.
    await call("POST", "/v1/buckets", { key: o.secret, body: { name: "archive" } });
    const page1 = await call("GET", "/v1/buckets?limit=2", { key: o.secret });
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((x: { name: string }) => x.name)).toEqual(["default", "inbound"]);
    expect(page1.body.pagination.hasMore).toBe(true);
    const page2 = await call("GET", `/v1/buckets?limit=2&cursor=${page1.body.pagination.nextCursor}`, {
      key: o.secret,
    });
    expect(page2.body.data.map((x: { name: string }) => x.name)).toEqual(["reports", "archive"]);
    expect(page2.body.pagination).toEqual({ nextCursor: null, hasMore: false });
    expect((await call("GET", "/v1/buckets?cursor=nope", { key: o.secret })).body.error).toMatchObject({
      code: "invalid_request",
      param: "cursor",
    });
    const patched = await call("PATCH", `/v1/buckets/${created.body.id}`, {
      key: o.secret,
      body: { description: "Q3", status: "archived" },
    });
    expect(patched.body).toMatchObject({ description: "Q3", status: "archived" });
    const refused = await call("POST", `/v1/buckets/${created.body.id}/uploads`, {
      key: o.secret,
      body: { filename: "x.txt" },
    });
    expect(refused.status).toBe(403);
    await call("PATCH", `/v1/buckets/${created.body.id}`, { key: o.secret, body: { status: "active" } });
    const { objectId } = await uploadObject(o, { bucketId: created.body.id, content: "12345" });
    expect((await call("DELETE", `/v1/buckets/${created.body.id}`, { key: o.secret })).status).toBe(409);
    expect((await call("DELETE", `/v1/buckets/${created.body.id}/objects/${objectId}`, { key: o.secret })).status).toBe(
      200,
    );
    expect((await call("DELETE", `/v1/buckets/${created.body.id}`, { key: o.secret })).status).toBe(200);
    expect((await call("GET", `/v1/buckets/${created.body.id}`, { key: o.secret })).status).toBe(404);
  });

  test("upload, finalize (pending), scan (clean), download; sizes and counts are real sums; whoami reports them", async () => {
    await startExecutor();
    const o = await newOrg();
    const content = "quarterly numbers\n".repeat(10);
    const { bucketId, objectId, object } = await uploadObject(o, { filename: "r é.txt", content });
    expect(object).toMatchObject({
      object: "bucket_object",
      id: objectId,
      bucketId,
      filename: "r é.txt",
      bytes: content.length,
      contentType: "text/plain",
      scanStatus: "pending",
    });
    // Finalizing again answers the object as it is.
    expect(
      (await call("POST", `/v1/buckets/${bucketId}/objects/${objectId}/finalize`, { key: o.secret })).body.id,
    ).toBe(objectId);
    await scanned(objectId);
    const got = await call("GET", `/v1/buckets/${bucketId}/objects/${objectId}`, { key: o.secret });
    expect(got.body).toMatchObject({ scanStatus: "clean", scanSignature: null });
    expect(got.body.scannedAt).toBeTruthy();

    const url = await call("GET", `/v1/buckets/${bucketId}/objects/${objectId}/download-url?expiresInSeconds=120`, {
      key: o.secret,
    });
    expect(url.status).toBe(200);
    expect(url.body.expiresInSeconds).toBe(120);
    const bytes = await getBytes(url.body.downloadUrl);
    expect(bytes.status).toBe(200);
    expect(bytes.text).toBe(content);
    for (const bad of [0, 604_801])
      expect(
        (
          await call("GET", `/v1/buckets/${bucketId}/objects/${objectId}/download-url?expiresInSeconds=${bad}`, {
            key: o.secret,
          })
        ).status,
      ).toBe(400);

    await uploadObject(o, { content: "abc" });
    const bucket = await call("GET", `/v1/buckets/${bucketId}`, { key: o.secret });
    expect(bucket.body).toMatchObject({ usedBytes: content.length + 3, objectCount: 2 });
    const who = await call("GET", "/v1/whoami", { key: o.secret });
    expect(who.body.storage.breakdown).toMatchObject({ fileBytes: content.length + 3, activeFileObjects: 2 });
    expect(who.body.storage.usedBytes).toBeGreaterThanOrEqual(content.length + 3);
    expect(who.body.storage.backend).toBe(expected.backend);
    expect(who.body.storage.scanner.kind).toBe(expected.scanner);
    expect(who.body.storage.scanner.version).toBeTruthy();

    // The scan's event is in the ledger.
    const events = await call("GET", "/v1/events?type=object.scanned", { key: o.secret });
    expect(events.body.data.map((e: { data: { objectId: string; scanStatus: string } }) => e.data)).toContainEqual(
      expect.objectContaining({ objectId, scanStatus: "clean" }),
    );
  });

  test("the EICAR test file is flagged infected, emits object.scanned and is never served", async () => {
    await startExecutor();
    const o = await newOrg();
    const { bucketId, objectId } = await uploadObject(o, {
      filename: "eicar.com",
      content: EICAR,
      contentType: "application/octet-stream",
    });
    await scanned(objectId);
    const got = await call("GET", `/v1/buckets/${bucketId}/objects/${objectId}`, { key: o.secret });
    expect(got.body.scanStatus).toBe("infected");
    expect(got.body.scanSignature).toMatch(/eicar/i);
    const url = await call("GET", `/v1/buckets/${bucketId}/objects/${objectId}/download-url`, { key: o.secret });
    expect(url.status).toBe(403);
    const events = await call("GET", "/v1/events?type=object.scanned", { key: o.secret });
    expect(events.body.data[0].data).toMatchObject({ objectId, scanStatus: "infected" });
  });

  test("a clean object is attached to a send (bytes fetched from the backend); an infected one is refused as an attachment and as a share", async () => {
    await startExecutor();
    const o = await newOrg();
    const from = await newInbox(o, "attach-from");
    const good = await uploadObject(o, { filename: "notes.txt", content: "stored notes\n" });
    const bad = await uploadObject(o, {
      filename: "eicar.com",
      content: EICAR,
      contentType: "application/octet-stream",
    });
    await scanned(good.objectId);
    await scanned(bad.objectId);
    const sent = await call("POST", "/v1/messages", {
      key: o.secret,
      body: {
        inboxId: from.id,
        to: "success@simulator.amazonses.com",
        text: "x",
        attachments: [{ objectId: good.objectId }],
      },
    });
    expect(sent.status).toBe(200);
    const attachment = (await call("GET", `/v1/messages/${sent.body.id}`, { key: o.secret })).body.message
      .attachments[0];
    expect(attachment).toMatchObject({ filename: "notes.txt", contentType: "text/plain" });
    expect(await (await callRaw("GET", `/v1/attachments/${attachment.id}/content`, { key: o.secret })).text()).toBe(
      "stored notes\n",
    );
    const refused = await call("POST", "/v1/messages", {
      key: o.secret,
      body: {
        inboxId: from.id,
        to: "success@simulator.amazonses.com",
        text: "x",
        attachments: [{ objectId: bad.objectId }],
      },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "not_permitted", param: "attachments[0].objectId" });
    expect(refused.body.error.message).toContain("infected");
    const share = await call("POST", `/v1/buckets/${bad.bucketId}/objects/${bad.objectId}/share-links`, {
      key: o.secret,
      body: {},
    });
    expect(share.status).toBe(403);
  });

  test("presigned PUT: a wrong header, a replay and an oversize body are refused; finalize before PUT is 409", async () => {
    const o = await newOrg();
    const bucketId = await defaultBucketId(o);
    const up = await call("POST", `/v1/buckets/${bucketId}/uploads`, {
      key: o.secret,
      body: { filename: "a.txt", contentType: "text/plain", size: 5 },
    });
    expect(up.body).toMatchObject({ method: "PUT", expiresInSeconds: 3600 });
    expect(
      Object.keys(up.body.headers)
        .map((k) => k.toLowerCase())
        .sort(),
    ).toEqual(expect.arrayContaining(["content-type", "x-amz-meta-content-type", "x-amz-meta-filename"]));
    expect(
      (await call("POST", `/v1/buckets/${bucketId}/objects/${up.body.objectId}/finalize`, { key: o.secret })).status,
    ).toBe(409);
    // Not listed before finalize.
    expect((await call("GET", `/v1/buckets/${bucketId}/objects/${up.body.objectId}`, { key: o.secret })).status).toBe(
      404,
    );
    const wrong = await putBytes(up.body.uploadUrl, { ...up.body.headers, "Content-Type": "text/html" }, "hello");
    expect(wrong.status).toBe(403);
    const oversize = await putBytes(up.body.uploadUrl, up.body.headers, "hello, too long");
    expect(oversize.status).toBeGreaterThanOrEqual(400);
    const ok = await putBytes(up.body.uploadUrl, up.body.headers, "hello");
    expect(ok.status).toBe(200);
    if (expected.backend === "filesystem") {
      // S3 accepts the same presigned PUT until it expires; the app's URLs are single-use.
      const replay = await putBytes(up.body.uploadUrl, up.body.headers, "hello");
      expect(replay.status).toBe(403);
    }
    const fin = await call("POST", `/v1/buckets/${bucketId}/objects/${up.body.objectId}/finalize`, { key: o.secret });
    expect(fin.body).toMatchObject({ bytes: 5, filename: "a.txt" });

    const short = await call("POST", `/v1/buckets/${bucketId}/uploads`, {
      key: o.secret,
      body: { filename: "b.txt", expiresInSeconds: 1 },
    });
    await new Promise((r) => setTimeout(r, 2100));
    const late = await putBytes(short.body.uploadUrl, short.body.headers, "late");
    expect(late.status).toBe(403);
    const tooBig = await call("POST", `/v1/buckets/${bucketId}/uploads`, {
      key: o.secret,
      body: { filename: "c.bin", size: 10 * 1024 ** 3 },
    });
    expect(tooBig.status).toBe(413);
  });

  test("batch delete: 1..1000 ids, per-id failures never abort the rest", async () => {
    const o = await newOrg();
    const a = await uploadObject(o, { content: "a" });
    const b = await uploadObject(o, { content: "b" });
    const stranger = await newOrg();
    const foreign = await uploadObject(stranger, { content: "c" });
    const res = await call("POST", `/v1/buckets/${a.bucketId}/objects/batch-delete`, {
      key: o.secret,
      body: { objectIds: [a.objectId, foreign.objectId, b.objectId] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: "batch_delete_result",
      deleted: [a.objectId, b.objectId],
      failed: [{ id: foreign.objectId, code: "resource_not_found", message: "No such object." }],
    });
    expect((await call("GET", `/v1/buckets/${a.bucketId}`, { key: o.secret })).body.objectCount).toBe(0);
    expect(
      (await call("GET", `/v1/buckets/${foreign.bucketId}/objects/${foreign.objectId}`, { key: stranger.secret }))
        .status,
    ).toBe(200);
    for (const objectIds of [[], Array.from({ length: 1001 }, () => a.objectId)]) {
      expect(
        (await call("POST", `/v1/buckets/${a.bucketId}/objects/batch-delete`, { key: o.secret, body: { objectIds } }))
          .status,
      ).toBe(400);
    }
  });
}
