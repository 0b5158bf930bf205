import { expect, test } from "vitest";
import { getDb } from "@/db";
import { appendEvent } from "@/lib/events/ledger";
import { call, newOrg, type TestOrg } from "./harness";

// Issue 10, item 16: event-stream cursors are opaque; tampered, forged or foreign cursors are 400.

async function append(org: TestOrg, n: number) {
  const db = await getDb();
  for (let i = 0; i < n; i++) {
    await db.transaction((tx) =>
      appendEvent(tx, { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:c", inboxId: null, data: { i } }),
    );
  }
}

const read = (org: TestOrg, q: string) => call("GET", `/v1/events?${q}`, { key: org.secret });

test("a cursor reveals no position: it does not decode to one, and the same position never gives the same cursor", async () => {
  const org = await newOrg();
  await append(org, 2);
  const first = await read(org, "tail=true");
  const second = await read(org, "tail=true");
  const cursor: string = first.body.pagination.nextCursor;
  expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(second.body.pagination.nextCursor).not.toBe(cursor);
  const decoded = Buffer.from(cursor, "base64url").toString("latin1");
  expect(decoded).not.toMatch(/p:\d/);
  // Both still work, and mean the same place.
  await append(org, 1);
  for (const c of [cursor, second.body.pagination.nextCursor]) {
    const after = await read(org, `since=${c}`);
    expect(after.status).toBe(200);
    expect(after.body.data.map((e: { data: { i: number } }) => e.data.i)).toEqual([0]);
  }
});

test("tampered, forged and other organizations' cursors are 400 naming the parameter", async () => {
  const org = await newOrg();
  const other = await newOrg();
  await append(org, 3);
  await append(other, 3);
  const mine: string = (await read(org, "limit=1")).body.pagination.nextCursor;
  const theirs: string = (await read(other, "limit=1")).body.pagination.nextCursor;

  const raw = Buffer.from(mine, "base64url");
  const flipped = (i: number) => {
    const b = Buffer.from(raw);
    b[i] = (b[i] ?? 0) ^ 1;
    return b.toString("base64url");
  };
  const forged = [
    flipped(raw.length - 1), // the tag
    flipped(15), // the ciphertext
    flipped(0), // the version
    mine.slice(0, -2),
    Buffer.from("p:1").toString("base64url"), // the old, readable format
    theirs, // valid, but not for this organization
  ];
  for (const c of forged) {
    for (const [q, param] of [
      [`since=${c}`, "since"],
      [`cursor=${c}&order=newest`, "cursor"],
    ] as const) {
      const res = await read(org, q);
      expect(res.status, q).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_request", param });
    }
  }
  // Replay takes the same cursors, with the same check.
  const replay = await call("POST", "/v1/events/replay", { key: org.secret, body: { since: theirs } });
  expect(replay.status).toBe(400);
  expect(replay.body.error).toMatchObject({ code: "invalid_request", param: "since" });
  expect((await call("POST", "/v1/events/replay", { key: org.secret, body: { since: mine } })).status).toBe(200);
});
