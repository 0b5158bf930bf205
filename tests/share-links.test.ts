import { beforeAll, expect, test } from "vitest";
import { EICAR } from "@/lib/providers/scanner";
import { cleanObject, newShareLink, uploadObject } from "./bucket-helpers";
import { call, callRaw, newOrg, type TestOrg } from "./harness";

/** Share links and bundles: the API, the branded /s/ page, /d/ downloads with exact use counts. */
let org: TestOrg;
beforeAll(async () => {
  org = await newOrg();
});

const tokenOf = (url: string) => new URL(url).pathname.split("/").pop() ?? "";
const form = (fields: Record<string, string>) => ({
  headers: { "content-type": "application/x-www-form-urlencoded" },
  rawBody: new URLSearchParams(fields).toString(),
});

test("only clean objects can be shared: pending is 409, infected 403", async () => {
  const pending = await uploadObject(org);
  const res = await call("POST", `/v1/buckets/${pending.bucketId}/objects/${pending.objectId}/share-links`, {
    key: org.secret,
    body: {},
  });
  expect(res.status).toBe(409);
  const { scanObject } = await import("@/lib/buckets/scan");
  const { getDb } = await import("@/db");
  const infected = await uploadObject(org, { content: EICAR, filename: "eicar.com" });
  expect((await scanObject(await getDb(), infected.objectId)).status).toBe("infected");
  const refused = await call("POST", `/v1/buckets/${infected.bucketId}/objects/${infected.objectId}/share-links`, {
    key: org.secret,
    body: {},
  });
  expect(refused.status).toBe(403);
  expect(refused.body.error.message).toContain("infected");
  const bundle = await call("POST", "/v1/share-links/bundles", {
    key: org.secret,
    body: { objectIds: [infected.objectId] },
  });
  expect(bundle.status).toBe(403);
});

test("a scan that never decides ends `failed`, never `clean` (scanner down to the last retry, or the bytes gone): such objects are never shared", async () => {
  const [{ markScanFailed, scanObject }, { getDb }, { storage }, { bucketObjects }, { eq }] = await Promise.all([
    import("@/lib/buckets/scan"),
    import("@/db"),
    import("@/lib/providers/storage"),
    import("@/db/schema"),
    import("drizzle-orm"),
  ]);
  const db = await getDb();
  // What the scan workflow's onFailure does after the last attempt.
  const undecided = await uploadObject(org);
  await markScanFailed(db, undecided.objectId, "clamd: connection refused");
  // A scan that finds no bytes to read.
  const gone = await uploadObject(org);
  const [row] = await db
    .select({ storageKey: bucketObjects.storageKey })
    .from(bucketObjects)
    .where(eq(bucketObjects.id, gone.objectId));
  await storage().delete(row?.storageKey ?? "");
  expect((await scanObject(db, gone.objectId)).status).toBe("failed");
  for (const { bucketId, objectId } of [undecided, gone]) {
    const got = await call("GET", `/v1/buckets/${bucketId}/objects/${objectId}`, { key: org.secret });
    expect(got.body.scanStatus).toBe("failed");
    // A later scan attempt (a duplicate event) leaves it failed.
    expect((await scanObject(db, objectId)).status).toBe("done");
    const refused = await call("POST", `/v1/buckets/${bucketId}/objects/${objectId}/share-links`, {
      key: org.secret,
      body: {},
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("could not be scanned");
  }
  const bundle = await call("POST", "/v1/share-links/bundles", {
    key: org.secret,
    body: { objectIds: [undecided.objectId] },
  });
  expect(bundle.status).toBe(403);
  const events = await call("GET", "/v1/events?type=object.scanned&limit=100", { key: org.secret });
  const scanned = (events.body.data as { data: { objectId: string; scanStatus: string } }[]).filter(
    (e) => e.data.objectId === undecided.objectId || e.data.objectId === gone.objectId,
  );
  expect(scanned.map((e) => e.data.scanStatus)).toEqual(["failed", "failed"]);
});

test("a password link: the /s/ page has a form, /d/ refuses without or with a wrong password, serves with the right one", async () => {
  const { bucketId, objectId, link } = await newShareLink(org, { password: "correct horse", maxUses: 2 });
  expect(link).toMatchObject({
    object: "share_link",
    objectId,
    hasPassword: true,
    maxUses: 2,
    oneTime: false,
    usesCount: 0,
    revoked: false,
  });
  expect(link.id).toMatch(/^shr_[0-9a-f]{32}$/);
  expect(link.shareUrl).toMatch(/\/s\/[A-Za-z0-9_-]+$/);
  expect(link.downloadUrl).toMatch(/\/d\/[A-Za-z0-9_-]+$/);
  // The password is kept only as an Argon2id hash; the token only as its SHA-256.
  const [{ getDb }, { shareLinks }, { eq }, { shareLinkUuid }] = await Promise.all([
    import("@/db"),
    import("@/db/schema"),
    import("drizzle-orm"),
    import("@/lib/buckets/ids"),
  ]);
  const [stored] = await (await getDb())
    .select()
    .from(shareLinks)
    .where(eq(shareLinks.id, shareLinkUuid(link.id) ?? ""));
  expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
  expect(JSON.stringify(stored)).not.toContain(tokenOf(link.shareUrl));
  const token = tokenOf(link.shareUrl);

  const pageRes = await callRaw("GET", `/s/${token}`);
  expect(pageRes.status).toBe(200);
  const html = await pageRes.text();
  expect(html).toContain('type="password"');
  expect(html).toContain("hello.txt");

  expect((await callRaw("GET", `/d/${token}`)).status).toBe(401);
  expect((await callRaw("POST", `/d/${token}`, form({ password: "wrong" }))).status).toBe(403);
  const ok = await callRaw("POST", `/d/${token}`, form({ password: "correct horse" }));
  expect(ok.status).toBe(200);
  expect(await ok.text()).toBe("hello, bucket\n");
  expect(ok.headers.get("content-disposition")).toContain("attachment");

  // The list never shows the URLs again; uses are counted.
  const list = await call("GET", `/v1/buckets/${bucketId}/objects/${objectId}/share-links`, { key: org.secret });
  expect(list.body.data).toHaveLength(1);
  expect(list.body.data[0]).toMatchObject({ usesCount: 1 });
  expect(list.body.data[0].shareUrl).toBeUndefined();

  const opens = await call("GET", `/v1/buckets/${bucketId}/objects/${objectId}/share-links/${link.id}/opens`, {
    key: org.secret,
  });
  expect(opens.body).toMatchObject({
    object: "share_link_opens",
    shareLinkId: link.id,
    objectId,
    summary: { views: 1, downloads: 1, refused: 2 },
  });
  expect(opens.body.data.map((o: { outcome: string }) => o.outcome).sort()).toEqual([
    "downloaded",
    "password_required",
    "viewed",
    "wrong_password",
  ]);

  const events = await call("GET", "/v1/events?type=share_link.opened", { key: org.secret });
  expect(events.body.data.map((e: { data: unknown }) => e.data)).toContainEqual(
    expect.objectContaining({ shareLinkId: link.id, objectId, usesCount: 1 }),
  );

  // Revoked: the page and the download say so.
  const revoked = await call("DELETE", `/v1/buckets/${bucketId}/objects/${objectId}/share-links/${link.id}`, {
    key: org.secret,
  });
  expect(revoked.body.revoked).toBe(true);
  expect((await callRaw("GET", `/s/${token}`)).status).toBe(410);
  expect((await callRaw("POST", `/d/${token}`, form({ password: "correct horse" }))).status).toBe(410);
});

test("a one-time link under 20 concurrent downloads opens exactly once", async () => {
  const { bucketId, objectId, link } = await newShareLink(org, { oneTime: true });
  expect(link).toMatchObject({ oneTime: true, maxUses: 1 });
  const token = tokenOf(link.downloadUrl);
  const results = await Promise.all(Array.from({ length: 20 }, () => callRaw("GET", `/d/${token}`)));
  const statuses = results.map((r) => r.status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(1);
  expect(statuses.filter((s) => s === 410)).toHaveLength(19);
  await Promise.all(results.map((r) => r.text()));
  const list = await call("GET", `/v1/buckets/${bucketId}/objects/${objectId}/share-links`, { key: org.secret });
  expect(list.body.data[0].usesCount).toBe(1);
  const opens = await call("GET", `/v1/buckets/${bucketId}/objects/${objectId}/share-links/${link.id}/opens`, {
    key: org.secret,
  });
  expect(opens.body.summary).toMatchObject({ downloads: 1, refused: 19 });
  expect((await callRaw("GET", `/s/${token}`)).status).toBe(410);
});

test("maxUses is exact under concurrency; expired links are refused", async () => {
  const { link } = await newShareLink(org, { maxUses: 3 });
  const token = tokenOf(link.downloadUrl);
  const results = await Promise.all(Array.from({ length: 10 }, () => callRaw("GET", `/d/${token}`)));
  expect(results.filter((r) => r.status === 200)).toHaveLength(3);
  await Promise.all(results.map((r) => r.text()));

  const fresh = await cleanObject(org);
  const past = await call("POST", `/v1/buckets/${fresh.bucketId}/objects/${fresh.objectId}/share-links`, {
    key: org.secret,
    body: { expiresAt: "2000-01-01T00:00:00Z" },
  });
  expect(past.status).toBe(400);
  const soon = await newShareLink(org, { expiresAt: new Date(Date.now() + 1500).toISOString() });
  await new Promise((r) => setTimeout(r, 1800));
  expect((await callRaw("GET", `/d/${tokenOf(soon.link.downloadUrl)}`)).status).toBe(410);
  expect((await callRaw("GET", "/d/not-a-real-token-at-all")).status).toBe(404);
});

test("bundles: several clean objects behind one link, listed newest first, revocable", async () => {
  const a = await cleanObject(org, { filename: "a.txt", content: "AAA" });
  const b = await cleanObject(org, { filename: "b.txt", content: "BBB" });
  const res = await call("POST", "/v1/share-links/bundles", {
    key: org.secret,
    body: { objectIds: [a.objectId, b.objectId], password: "pw-bundle" },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ object: "share_bundle", fileCount: 2, hasPassword: true, revoked: false });
  expect(res.body.token).toBeTruthy();
  const token = tokenOf(res.body.shareUrl);
  const html = await (await callRaw("GET", `/s/${token}`)).text();
  expect(html).toContain("a.txt");
  expect(html).toContain("b.txt");
  const got = await callRaw("POST", `/d/${token}`, form({ password: "pw-bundle", objectId: b.objectId }));
  expect(got.status).toBe(200);
  expect(await got.text()).toBe("BBB");

  const list = await call("GET", "/v1/share-links/bundles", { key: org.secret });
  expect(list.body.data[0]).toMatchObject({ id: res.body.id, usesCount: 1 });
  expect(list.body.data[0].token).toBeUndefined();
  const revoked = await call("DELETE", `/v1/share-links/${res.body.id}`, { key: org.secret });
  expect(revoked.body.revoked).toBe(true);
  expect((await callRaw("POST", `/d/${token}`, form({ password: "pw-bundle", objectId: a.objectId }))).status).toBe(
    410,
  );
  const stranger = await newOrg();
  expect((await call("DELETE", `/v1/share-links/${res.body.id}`, { key: stranger.secret })).status).toBe(404);
});
