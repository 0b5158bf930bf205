import { and, asc, eq, gt, gte, inArray, lte, type SQL } from "drizzle-orm";
import type { Db } from "@/db";
import { ledgerEvents, webhooks } from "@/db/schema";
import { invalidRequest, notFound } from "@/lib/core/errors";
import type { Principal } from "@/lib/auth/principal";
import { webhookReplay } from "@/lib/webhooks/workflow-events";
import { publishWorkflowEventsNow } from "@/lib/workflows/publish";
import { decodeEventCursor } from "./cursor";

export interface ReplayInput {
  since?: string;
  sinceSeq?: number;
  sinceTimestamp?: string;
  until?: string;
  types?: string[];
  inboxId?: string;
  webhookId?: string;
  maxEvents: number;
}

const ref = (e: typeof ledgerEvents.$inferSelect) => ({
  eventId: e.eventId,
  seq: e.seq,
  partitionKey: e.partitionKey,
  createdAt: e.createdAt.toISOString(),
});

/**
 * Re-sends a slice of the ledger to the organization's active webhooks, each event re-matched on
 * the webhooks' subscribed types, in `(partitionKey, seq)` order, with the original event id,
 * through the normal delivery path (signed, logged as replays).
 */
export async function replayEvents(db: Db, principal: Principal, input: ReplayInput) {
  const bounds = [input.since, input.sinceSeq, input.sinceTimestamp].filter((b) => b !== undefined);
  if (bounds.length !== 1)
    throw invalidRequest("Give exactly one lower bound: since, sinceSeq (with inboxId) or sinceTimestamp.", "since");
  if (input.sinceSeq !== undefined && !input.inboxId)
    throw invalidRequest("sinceSeq needs inboxId (it counts within the inbox's partition).", "inboxId");

  let targets = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.orgId, principal.orgId), eq(webhooks.status, "active")));
  if (input.webhookId) {
    targets = targets.filter((w) => w.id === input.webhookId);
    if (targets.length === 0) throw notFound("active webhook", "webhookId");
  }

  const where: SQL[] = [eq(ledgerEvents.orgId, principal.orgId)];
  if (input.since)
    where.push(gt(ledgerEvents.position, await decodeEventCursor(db, principal.orgId, input.since, "since")));
  if (input.sinceSeq !== undefined)
    where.push(gte(ledgerEvents.seq, input.sinceSeq), eq(ledgerEvents.partitionKey, `inbox:${input.inboxId}`));
  if (input.sinceTimestamp) where.push(gte(ledgerEvents.createdAt, new Date(input.sinceTimestamp)));
  if (input.until) where.push(lte(ledgerEvents.createdAt, new Date(input.until)));
  if (input.inboxId) where.push(eq(ledgerEvents.inboxId, input.inboxId));
  if (input.types?.length) where.push(inArray(ledgerEvents.type, input.types));
  const rows = await db
    .select()
    .from(ledgerEvents)
    .where(and(...where))
    .orderBy(asc(ledgerEvents.partitionKey), asc(ledgerEvents.seq))
    .limit(input.maxEvents + 1);
  if (rows.length > input.maxEvents)
    throw invalidRequest(
      `The slice holds more than maxEvents (${input.maxEvents}) events; narrow it or raise maxEvents (up to 5000).`,
      "maxEvents",
    );

  let replayed = 0;
  let skipped = 0;
  const perWebhook = new Map<string, string[]>();
  for (const e of rows) {
    const matching = targets.filter((w) => w.events.includes(e.type));
    if (matching.length === 0) {
      skipped++;
      continue;
    }
    replayed++;
    for (const w of matching) perWebhook.set(w.id, [...(perWebhook.get(w.id) ?? []), e.eventId]);
  }
  if (perWebhook.size > 0) {
    // One ordered run per webhook (see lib/webhooks/functions/replay-webhook.ts).
    await publishWorkflowEventsNow(
      db,
      [...perWebhook].map(([webhookId, eventIds]) => webhookReplay.create({ webhookId, eventIds })),
    );
  }
  const first = rows[0];
  const last = rows[rows.length - 1];
  return { replayed, skipped, from: first ? ref(first) : null, to: last ? ref(last) : null };
}
