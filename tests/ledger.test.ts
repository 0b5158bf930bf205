import { and, asc, eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { ledgerEvents } from "@/db/schema";
import { appendEvent } from "@/lib/events/ledger";
import { newOrg } from "./harness";

test("sequence numbers stay contiguous and unique under concurrent writers to one partition", async () => {
  const org = await newOrg();
  const db = await getDb();
  const writers = 40;
  await Promise.all(
    Array.from({ length: writers }, (_, i) =>
      db.transaction((tx) => appendEvent(tx, { orgId: org.orgId, type: "message.received", partitionKey: "inbox:race", data: { i } })),
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
  await db.transaction((tx) => appendEvent(tx, { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:rb", data: {} }));
  await expect(
    db.transaction(async (tx) => {
      await appendEvent(tx, { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:rb", data: {} });
      throw new Error("abort");
    }),
  ).rejects.toThrow("abort");
  const next = await db.transaction((tx) => appendEvent(tx, { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:rb", data: {} }));
  expect(next.seq).toBe(2);
  expect(next.eventId).toMatch(/^evt_/);
});
