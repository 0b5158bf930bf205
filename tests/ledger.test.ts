import { and, asc, eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { ledgerEvents, webhookQueue } from "@/db/schema";
import { appendEvent, appendEvents } from "@/lib/events/ledger";
import { call, newOrg } from "./harness";

test("sequence numbers stay contiguous and unique under concurrent writers to one partition", async () => {
  const org = await newOrg();
  const db = await getDb();
  const writers = 40;
  await Promise.all(
    Array.from({ length: writers }, (_, i) =>
      db.transaction((tx) =>
        appendEvent(tx, { orgId: org.orgId, type: "message.received", partitionKey: "inbox:race", data: { i } }),
      ),
    ),
  );
  const rows = await db
    .select({ seq: ledgerEvents.seq })
    .from(ledgerEvents)
    .where(and(eq(ledgerEvents.orgId, org.orgId), eq(ledgerEvents.partitionKey, "inbox:race")))
    .orderBy(asc(ledgerEvents.seq));
  expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: writers }, (_, i) => i + 1));
});

test("a rolled-back change takes its event and its number with it", async () => {
  const org = await newOrg();
  const db = await getDb();
  await db.transaction((tx) =>
    appendEvent(tx, { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:rb", data: {} }),
  );
  await expect(
    db.transaction(async (tx) => {
      await appendEvent(tx, { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:rb", data: {} });
      throw new Error("abort");
    }),
  ).rejects.toThrow("abort");
  const next = await db.transaction((tx) =>
    appendEvent(tx, { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:rb", data: {} }),
  );
  expect(next.seq).toBe(2);
  expect(next.eventId).toMatch(/^evt_/);
});

test("a batch of events takes consecutive numbers per partition, in order, and queues each to its subscribers", async () => {
  const org = await newOrg();
  const db = await getDb();
  const hook = await call("POST", "/v1/webhooks", {
    key: org.secret,
    body: { url: "http://127.0.0.1:9/hook", events: ["message.delivered"] },
  });
  expect(hook.status).toBe(200);
  await db.transaction((tx) =>
    appendEvent(tx, { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:a", data: { n: 0 } }),
  );
  const batch = await db.transaction((tx) =>
    appendEvents(tx, [
      { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:b", data: { n: 1 } },
      { orgId: org.orgId, type: "message.delivered", partitionKey: "inbox:a", data: { n: 2 } },
      { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:a", data: { n: 3 } },
      { orgId: org.orgId, type: "message.delivered", partitionKey: "inbox:b", data: { n: 4 } },
    ]),
  );
  expect(batch.map((e) => [e.partitionKey, e.seq, (e.data as { n: number }).n])).toEqual([
    ["inbox:b", 1, 1],
    ["inbox:a", 2, 2],
    ["inbox:a", 3, 3],
    ["inbox:b", 2, 4],
  ]);
  expect(new Set(batch.map((e) => e.eventId)).size).toBe(4);
  // The ledger's own order (position) is the order given.
  const positions = batch.map((e) => Number(e.position));
  expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  const queued = await db.select().from(webhookQueue).where(eq(webhookQueue.webhookId, hook.body.webhook.id));
  expect(queued.map((q) => q.eventId).sort()).toEqual([batch[1]?.eventId, batch[3]?.eventId].sort());
  // The partition counters carry on from the batch.
  const next = await db.transaction((tx) =>
    appendEvent(tx, { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:a", data: {} }),
  );
  expect(next.seq).toBe(4);
});
