/**
 * A real process for the fan-out crash test (tests/workflows/fanout-crash.test.ts): the app's
 * functions behind the SDK's serve() and the embedded executor, on the database its environment
 * names.
 *   start <total>      starts a synthetic fan-out of <total> members; prints its id, then
 *                      {"rowsDone": n} as it progresses (to be killed half-way).
 *   resume <fanoutId>  recovers (PGlite: runs the dead process left running), runs until the fan-out
 *                      completes; prints its rows and chunks, and exits.
 */
import { eq, sql } from "drizzle-orm";
import { closeDb, getDb, getDbHandle } from "@/db";
import { fanoutChunks, fanoutRows, fanouts } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { recoverOrphanedRuns } from "@/lib/workflows/executor/store";
import { startFanout } from "@/lib/workflows/fanout";
import { startHarness } from "./harness";

const say = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);
const [mode, arg] = process.argv.slice(2);
const db = await getDb();
if (mode === "resume" && (await getDbHandle()).kind === "pglite") await recoverOrphanedRuns();
const h = await startHarness({ workers: 4 });
await h.serveApp(inngest, functions);
h.executor.start();

let id = arg ?? "";
if (mode === "start") {
  const started = await db.transaction((tx) =>
    startFanout(tx, { kind: "synthetic", params: { total: Number(arg) }, chunkSize: 250 }),
  );
  await started.afterCommit();
  id = started.id;
  say({ fanoutId: id });
}
for (;;) {
  const [f] = await db.select().from(fanouts).where(eq(fanouts.id, id));
  if (mode === "start") say({ rowsDone: f?.rowsDone ?? 0 });
  if (f?.status === "completed") break;
  await new Promise((r) => setTimeout(r, 100));
}
const [rows] = await db
  .select({
    n: sql<number>`count(*)`.mapWith(Number),
    members: sql<number>`count(distinct ${fanoutRows.memberKey})`.mapWith(Number),
  })
  .from(fanoutRows)
  .where(eq(fanoutRows.fanoutId, id));
const [chunks] = await db
  .select({
    n: sql<number>`count(*)`.mapWith(Number),
    rows: sql<number>`coalesce(sum(${fanoutChunks.rows}), 0)`.mapWith(Number),
  })
  .from(fanoutChunks)
  .where(eq(fanoutChunks.fanoutId, id));
const [f] = await db.select().from(fanouts).where(eq(fanouts.id, id));
say({
  done: true,
  rows: rows?.n,
  members: rows?.members,
  chunks: chunks?.n,
  chunkRows: chunks?.rows,
  fanout: { chunksTotal: f?.chunksTotal, chunksDone: f?.chunksDone, rowsDone: f?.rowsDone },
});
await h.close();
await closeDb();
process.exit(0);
