import { expect, test } from "vitest";
import { getDb } from "@/db";
import { appendEvent } from "@/lib/events/ledger";
import { findGaps } from "@/lib/events/stream";
import { call, newOrg, type TestOrg } from "./harness";

async function append(
  org: TestOrg,
  n: number,
  opts: { partition?: string; type?: "message.sent" | "message.received"; inboxId?: string } = {},
) {
  const db = await getDb();
  for (let i = 0; i < n; i++) {
    await db.transaction((tx) =>
      appendEvent(tx, {
        orgId: org.orgId,
        type: opts.type ?? "message.sent",
        partitionKey: opts.partition ?? "inbox:p",
        inboxId: opts.inboxId ?? null,
        data: { i },
      }),
    );
  }
}

const read = (org: TestOrg, q: string) => call("GET", `/v1/events?${q}`, { key: org.secret });

test("pages forward from a cursor until nextCursor is null, and back from the newest", async () => {
  const org = await newOrg();
  await append(org, 7);
  const seen: number[] = [];
  let cursor = "";
  for (;;) {
    const res = await read(org, `limit=3${cursor ? `&since=${cursor}` : ""}`);
    expect(res.status).toBe(200);
    seen.push(...res.body.data.map((e: { data: { i: number } }) => e.data.i));
    if (!res.body.pagination.nextCursor) break;
    cursor = res.body.pagination.nextCursor;
  }
  expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
  const newest = await read(org, "limit=3&order=newest");
  expect(newest.body.data.map((e: { data: { i: number } }) => e.data.i)).toEqual([6, 5, 4]);
  const older = await read(org, `limit=3&order=newest&cursor=${newest.body.pagination.nextCursor}`);
  expect(older.body.data.map((e: { data: { i: number } }) => e.data.i)).toEqual([3, 2, 1]);
  const entry = newest.body.data[0];
  expect(entry).toMatchObject({ object: "event", type: "message.sent", seq: 7, partitionKey: "inbox:p" });
  expect(entry.eventId).toMatch(/^evt_/);
});

test("tail returns the head cursor (null on an empty stream) and honours filters", async () => {
  const org = await newOrg();
  expect((await read(org, "tail=true")).body).toEqual({
    object: "list",
    data: [],
    pagination: { nextCursor: null, hasMore: false },
    gaps: [],
  });
  await append(org, 2, { type: "message.received" });
  await append(org, 1, { type: "message.sent" });
  const head = await read(org, "tail=true&type=message.received");
  const after = await read(org, `since=${head.body.pagination.nextCursor}`);
  expect(after.body.data.map((e: { type: string }) => e.type)).toEqual(["message.sent"]);
  const none = await read(org, `tail=true&type=domain.verified`);
  expect(none.body.pagination.nextCursor).toBeNull();
});

test("gaps are window-local, and on filtered reads the excluded events appear as gaps", async () => {
  const org = await newOrg();
  const inbox = "01930000-0000-7000-8000-0000000000aa";
  const db = await getDb();
  for (const type of [
    "message.sent",
    "message.received",
    "message.sent",
    "message.received",
    "message.sent",
  ] as const) {
    await db.transaction((tx) =>
      appendEvent(tx, { orgId: org.orgId, type, partitionKey: `inbox:${inbox}`, inboxId: inbox, data: {} }),
    );
  }
  const sentOnly = await read(org, "type=message.sent");
  expect(sentOnly.body.data.map((e: { seq: number }) => e.seq)).toEqual([1, 3, 5]);
  expect(sentOnly.body.gaps).toEqual([{ partitionKey: `inbox:${inbox}`, missingSeq: [2, 4] }]);
  const all = await read(org, `inboxId=${inbox}`);
  expect(all.body.gaps).toEqual([]);
  expect(
    findGaps([
      { partitionKey: "a", seq: 1 },
      { partitionKey: "b", seq: 9 },
      { partitionKey: "a", seq: 4 },
    ]),
  ).toEqual([{ partitionKey: "a", missingSeq: [2, 3] }]);
});

test("long-poll returns at once when events wait, wakes on the first matching append, and times out empty", async () => {
  const org = await newOrg();
  await append(org, 1);
  const head = (await read(org, "tail=true")).body.pagination.nextCursor;
  const t0 = Date.now();
  const pending = read(org, `since=${head}&wait=10&type=message.received`);
  await new Promise((r) => setTimeout(r, 300));
  await append(org, 1, { type: "message.sent" }); // does not match the filter: keeps waiting
  await new Promise((r) => setTimeout(r, 300));
  await append(org, 1, { type: "message.received" });
  const woke = await pending;
  const elapsed = Date.now() - t0;
  expect(woke.body.data.map((e: { type: string }) => e.type)).toEqual(["message.received"]);
  expect(elapsed).toBeLessThan(5000);
  const immediate = await read(org, "wait=10");
  expect(immediate.body.data.length).toBeGreaterThan(0);
  const last = (await read(org, "tail=true")).body.pagination.nextCursor;
  const t1 = Date.now();
  const empty = await read(org, `since=${last}&wait=1`);
  expect(empty.body).toMatchObject({ data: [], pagination: { nextCursor: null, hasMore: false } });
  expect(Date.now() - t1).toBeGreaterThanOrEqual(900);
});

test("bad parameters are 400 naming the parameter", async () => {
  const org = await newOrg();
  for (const [q, param] of [
    ["limit=101", "limit"],
    ["wait=13", "wait"],
    ["order=sideways", "order"],
    ["type=nope", "type"],
    ["since=garbage", "since"],
    ["tail=maybe", "tail"],
  ] as const) {
    const res = await read(org, q);
    expect(res.status, q).toBe(400);
    expect(res.body.error.param, q).toBe(param);
  }
});

test("8 concurrent writers × 1,000 events on one partition leave seq contiguous with no duplicates", async () => {
  const org = await newOrg();
  const db = await getDb();
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; i < 1000; i++) {
        await db.transaction((tx) =>
          appendEvent(tx, { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:hot", data: { w, i } }),
        );
      }
    }),
  );
  const seqs: number[] = [];
  let cursor = "";
  for (;;) {
    const res = await read(org, `limit=100${cursor ? `&since=${cursor}` : ""}`);
    seqs.push(...res.body.data.map((e: { seq: number }) => e.seq));
    expect(res.body.gaps).toEqual([]);
    if (!res.body.pagination.nextCursor) break;
    cursor = res.body.pagination.nextCursor;
  }
  expect(seqs).toHaveLength(8000);
  expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 8000 }, (_, i) => i + 1));
}, 120_000);
