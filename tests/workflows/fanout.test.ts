import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getDb } from "@/db";
import { fanoutChunks, fanoutRows, fanouts } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { startFanout } from "@/lib/workflows/fanout";
import { fanoutChunk } from "@/lib/workflows/workflow-events";
import { publishWorkflowEventsNow } from "@/lib/workflows/publish";
import { type Harness, sleep, startHarness, waitForRun } from "./harness";

/**
 * The fan-out primitive through the app's real functions and `serve()`: 20,000 synthetic members in
 * chunks of 500, every member exactly once; a duplicated chunk (a retried delivery of its event
 * under a new id) writes nothing.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.serveApp(inngest, functions);
  h.executor.start();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

async function finished(id: string, ms = 100_000) {
  const db = await getDb();
  const deadline = Date.now() + ms;
  for (;;) {
    const [f] = await db.select().from(fanouts).where(eq(fanouts.id, id));
    if (f?.status === "completed") return f;
    if (Date.now() > deadline) throw new Error(`fan-out not completed: ${JSON.stringify(f)}`);
    await sleep(100);
  }
}

test("20,000 members fan out in chunks, each member exactly once; a repeated chunk writes nothing", async () => {
  const db = await getDb();
  const { id, afterCommit } = await db.transaction((tx) =>
    startFanout(tx, { kind: "synthetic", params: { total: 20_000 }, chunkSize: 500 }),
  );
  await afterCommit();
  const f = await finished(id);
  expect(f).toMatchObject({ chunksTotal: 40, chunksDone: 40, rowsDone: 20_000 });
  const [rows] = await db
    .select({
      n: sql<number>`count(*)`.mapWith(Number),
      members: sql<number>`count(distinct ${fanoutRows.memberKey})`.mapWith(Number),
    })
    .from(fanoutRows)
    .where(eq(fanoutRows.fanoutId, id));
  expect(rows).toEqual({ n: 20_000, members: 20_000 });

  // The same chunk again (as a redelivered event would be): applied once, so nothing changes.
  await publishWorkflowEventsNow(db, [
    fanoutChunk.create({ fanoutId: id, chunk: 7, after: "m0003500", last: "m0004000" }, { id: `again:${id}:7` }),
  ]);
  await waitForRun("svc-fanout-chunk", (r) => r.event.id === `again:${id}:7` && r.status === "completed");
  const [after] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(fanoutRows)
    .where(eq(fanoutRows.fanoutId, id));
  expect(after?.n).toBe(20_000);
  const [chunks] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(fanoutChunks)
    .where(eq(fanoutChunks.fanoutId, id));
  expect(chunks?.n).toBe(40);
}, 150_000);
