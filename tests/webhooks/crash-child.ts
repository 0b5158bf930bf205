/**
 * A real process for the webhook crash test (tests/webhooks/crash.test.ts), on the database its
 * environment names (PGLITE_DIR or DATABASE_URL):
 *   seed <receiverUrl> <count>  creates an organization and an endpoint, starts the dispatcher and
 *                                appends <count> events (100 per transaction) while it delivers;
 *                                prints {"seeded": …} after the last append and keeps delivering.
 *   drain <webhookId>            starts the dispatcher and waits until the endpoint's queue is
 *                                empty; prints the delivery log's counts and the number of events
 *                                committed, and exits.
 */
import { eq, sql } from "drizzle-orm";
import { closeDb, getDb } from "@/db";
import { ledgerEvents, organizations, webhookDeliveries, webhooks } from "@/db/schema";
import { appendEvent } from "@/lib/events/ledger";
import { queuedDeliveries, startWebhookDispatcher, stopWebhookDispatcher } from "@/lib/webhooks/dispatcher";
import { newWebhookSecret } from "@/lib/webhooks/signing";

const say = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);
const [mode, arg, countArg] = process.argv.slice(2);
const db = await getDb();

if (mode === "seed") {
  const [org] = await db
    .insert(organizations)
    .values({ name: "Crash", slug: `crash-${Date.now()}` })
    .returning();
  if (!org) throw new Error("no organization");
  const secret = newWebhookSecret();
  const [hook] = await db
    .insert(webhooks)
    .values({ orgId: org.id, url: arg ?? "", events: ["message.sent"], secret })
    .returning();
  if (!hook) throw new Error("no webhook");
  say({ webhookId: hook.id, secret });
  await startWebhookDispatcher();
  const count = Number(countArg);
  for (let i = 0; i < count; i += 100) {
    await db.transaction(async (tx) => {
      for (let j = i; j < Math.min(count, i + 100); j++)
        await appendEvent(tx, { orgId: org.id, type: "message.sent", partitionKey: "inbox:crash", data: { n: j } });
    });
  }
  say({ seeded: count });
} else if (mode === "drain") {
  const webhookId = arg ?? "";
  await startWebhookDispatcher();
  while ((await queuedDeliveries(db, webhookId)) > 0) await new Promise((r) => setTimeout(r, 100));
  await stopWebhookDispatcher();
  const rows = await db
    .select({
      status: webhookDeliveries.status,
      error: sql<string | null>`min(${webhookDeliveries.error})`,
      n: sql<number>`count(*)`.mapWith(Number),
    })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .groupBy(webhookDeliveries.status);
  const [interrupted] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(webhookDeliveries)
    .where(sql`${webhookDeliveries.webhookId} = ${webhookId} and ${webhookDeliveries.error} like 'interrupted%'`);
  const [state] = await db
    .select({ status: webhooks.status, orgId: webhooks.orgId })
    .from(webhooks)
    .where(eq(webhooks.id, webhookId));
  const [events] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(ledgerEvents)
    .where(eq(ledgerEvents.orgId, state?.orgId ?? ""));
  say({
    log: Object.fromEntries(rows.map((r) => [r.status, r.n])),
    interrupted: interrupted?.n ?? 0,
    endpoint: state?.status,
    committed: events?.n ?? 0,
  });
  await closeDb();
  process.exit(0);
}
