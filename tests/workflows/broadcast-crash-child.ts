/**
 * A real process for the broadcast crash test (tests/workflows/broadcast-crash.test.ts): the app's
 * functions behind serve() and the embedded executor, `/v1` through the app's dispatcher.
 *   start <members>        an organization, an inbox and an audience of <members>; queues a broadcast;
 *                          prints {broadcastId, orgId} and then {made: n} as members' messages are made
 *                          (to be killed half-way).
 *   resume <orgId> <bcast> recovers (PGlite: the runs the dead process left running), runs until the
 *                          broadcast's fan-out completes; prints the messages per member, and exits.
 */
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { closeDb, getDb, getDbHandle } from "@/db";
import { audienceMembers, broadcasts, fanouts, messages } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { broadcastUuid } from "@/lib/audiences/broadcast";
import { dispatch } from "@/lib/http";
import { bootstrap } from "@/lib/organizations/bootstrap";
import { recoverOrphanedRuns } from "@/lib/workflows/executor/store";
import { startHarness } from "./harness";

const say = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);
const [mode, a, b] = process.argv.slice(2);
const db = await getDb();
if (mode === "resume" && (await getDbHandle()).kind === "pglite") await recoverOrphanedRuns();
const h = await startHarness({ workers: 4 });
await h.serveApp(inngest, functions);
h.executor.start();

async function api(secret: string, method: string, path: string, body?: unknown) {
  const res = await dispatch(
    new Request(`http://localhost${path}`, {
      method,
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const json = (await res.json()) as Record<string, any>;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

let id = "";
if (mode === "start") {
  const total = Number(a);
  const org = await bootstrap(db, { email: `bcast-${Date.now()}@example.test`, orgName: "Broadcast crash" });
  const inbox = (await api(org.secret, "POST", "/v1/inboxes", { address: `bcast-${Date.now()}@svc.localhost` })).inbox;
  const audience = (await api(org.secret, "POST", "/v1/audiences", { name: "Crash" })).list;
  for (let i = 0; i < total; i += 2000) {
    const members = Array.from({ length: Math.min(2000, total - i) }, (_, j) => ({
      email: `m${String(i + j).padStart(6, "0")}@example.com`,
    }));
    await api(org.secret, "POST", `/v1/audiences/${audience.id}/members`, { members });
  }
  const queued = await api(org.secret, "POST", `/v1/audiences/${audience.id}/send`, {
    inboxId: inbox.id,
    subject: "Crash",
    text: "Once each",
  });
  id = broadcastUuid(queued.id as string) ?? "";
  say({ broadcastId: queued.id, orgId: org.organization.id });
} else {
  id = broadcastUuid(b ?? "") ?? "";
}
const made = async () => {
  const [r] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(messages)
    .where(eq(messages.broadcastId, id));
  return r?.n ?? 0;
};
for (;;) {
  const [row] = await db
    .select({ status: fanouts.status })
    .from(broadcasts)
    .innerJoin(fanouts, eq(fanouts.id, broadcasts.fanoutId))
    .where(eq(broadcasts.id, id));
  if (mode === "start") say({ made: await made() });
  if (row?.status === "completed") break;
  await new Promise((r) => setTimeout(r, 200));
}
const [counts] = await db
  .select({
    n: sql<number>`count(*)`.mapWith(Number),
    members: sql<number>`count(distinct ${messages.to}[1])`.mapWith(Number),
  })
  .from(messages)
  .where(and(eq(messages.broadcastId, id), isNotNull(messages.broadcastId)));
const [audience] = await db
  .select({ n: sql<number>`count(*)`.mapWith(Number) })
  .from(audienceMembers)
  .innerJoin(broadcasts, eq(broadcasts.audienceId, audienceMembers.audienceId))
  .where(eq(broadcasts.id, id));
say({ done: true, messages: counts?.n, members: counts?.members, audience: audience?.n });
await h.close();
await closeDb();
process.exit(0);
