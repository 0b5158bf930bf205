import { createHmac, timingSafeEqual } from "node:crypto";
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { inboxConnections, outbox, slackApps, slackEvents } from "@/db/schema";
import { channelAdapter } from "@/lib/channels";
import { openInstallSecret } from "@/lib/channels/slack";
import { ApiError } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { inboxByConnection } from "@/lib/inboxes/connections";
import { log } from "@/lib/log";
import { landInbound } from "@/lib/messages/receive";
import { enqueueOutbox, finishOutbox, newLeaseToken, type OutboxRow } from "@/lib/outbox/store";
import { appSecrets } from "./app";

/** Slack's replay window for a request timestamp (its docs: 5 minutes). */
const WINDOW_S = 5 * 60;
const CHANNEL = "slack";
const str = (v: unknown): string => (typeof v === "string" ? v : "");

const unauthorized = (why: string) => new ApiError("invalid_signature", `The Slack request does not verify: ${why}.`);

/** The v0 signature of `body` at `timestamp` under `secret`. */
export const v0Signature = (secret: string, timestamp: string, body: string) =>
  `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;

function sameSignature(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The signing secrets that may have signed a request for `appId` (any active app's for none). */
async function signingSecrets(db: Db, appId: string | null): Promise<string[]> {
  const rows = await db
    .select()
    .from(slackApps)
    .where(appId ? and(eq(slackApps.appId, appId), eq(slackApps.status, "active")) : eq(slackApps.status, "active"));
  const secrets = new Set<string>();
  for (const r of rows) {
    try {
      secrets.add((await appSecrets(db, r)).signingSecret);
    } catch {
      // A managed app while the operator's app is unset: it verifies nothing.
    }
  }
  if (env.SLACK_SIGNING_SECRET && (appId === null || appId === env.SLACK_APP_ID)) secrets.add(env.SLACK_SIGNING_SECRET);
  return [...secrets];
}

/**
 * `POST /v1/providers/slack/events`: verifies the v0 signature over the raw body (401 and nothing
 * stored otherwise), answers `url_verification`, stores an `event_callback` once by its `event_id`
 * (Slack's retries are acknowledged and dropped) together with its outbox entry (`slack.event`, one
 * transaction) and acknowledges it; the entry is performed after the acknowledgement (Slack wants an
 * answer within 3 seconds), and by the outbox relay if this process dies before it finished.
 */
export async function receiveSlackEvent(
  db: Db,
  body: Record<string, unknown>,
  raw: { body: string; headers: Headers } | null,
): Promise<{ ok: true; challenge?: string }> {
  if (!raw) throw unauthorized("no request");
  const timestamp = raw.headers.get("x-slack-request-timestamp") ?? "";
  const signature = raw.headers.get("x-slack-signature") ?? "";
  if (!/^\d{1,12}$/.test(timestamp) || !signature) throw unauthorized("missing X-Slack-Signature or timestamp");
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > WINDOW_S) throw unauthorized("stale timestamp");
  const appId = body.type === "url_verification" ? null : typeof body.api_app_id === "string" ? body.api_app_id : "";
  const secrets = await signingSecrets(db, appId);
  if (!secrets.some((s) => sameSignature(v0Signature(s, timestamp, raw.body), signature)))
    throw unauthorized("bad signature");
  if (body.type === "url_verification") return { ok: true, challenge: str(body.challenge) };
  if (body.type !== "event_callback" || typeof body.event_id !== "string") return { ok: true };
  const eventId = body.event_id;
  // The inbox the event is for (by its installation), found before the row is stored: its work is
  // enqueued in the transaction that stores it. An event no inbox takes is stored as done.
  const inbox = await inboxByConnection(db, CHANNEL, routeOf(body).address);
  const token = newLeaseToken();
  const entry = await db.transaction(async (tx) => {
    const [stored] = await tx
      .insert(slackEvents)
      .values({ eventId, payload: body, processedAt: inbox ? null : new Date() })
      .onConflictDoNothing()
      .returning({ id: slackEvents.id });
    if (!stored || !inbox) return null;
    return enqueueOutbox(tx, { orgId: inbox.orgId, kind: SLACK_EVENT_KIND, subjectId: stored.id, payload: {} }, token);
  });
  // After the acknowledgement: the request answers now and the event lands on its own, under the
  // lease the entry was written with. Should this process die first, the relay takes the entry over
  // when the lease expires (lib/outbox/relay.ts); a row without an entry is re-enqueued by
  // `recoverSlackEvents` (housekeeping).
  if (entry)
    setImmediate(() => {
      // Loaded here: the relay's handler table names this module.
      void import("@/lib/outbox/relay").then(({ performOutbox }) => performOutbox(db, entry, token));
    });
  return { ok: true };
}

/** The outbox kind of a stored event's processing (`OUTBOX_HANDLERS`). */
export const SLACK_EVENT_KIND = "slack.event";

/** Where an Events API delivery goes: its app, and the installation (`<appId>:<enterprise or team id>`). */
function routeOf(p: Record<string, unknown>) {
  const appId = str(p.api_app_id);
  const auth = (Array.isArray(p.authorizations) ? p.authorizations[0] : null) as Record<string, unknown> | null;
  const enterprise = auth?.is_enterprise_install === true ? str(auth.enterprise_id) || str(p.enterprise_id) : null;
  const workspace = enterprise || str(p.team_id);
  return { appId, address: `${appId}:${workspace}` };
}

/**
 * The outbox handler of `slack.event`: lands the stored event it names, once. The row is locked, the
 * event landed (`landInbound` in this transaction), `processed_at` set and the entry finished in one
 * transaction, so a crash anywhere before the commit leaves the event to be processed again and a
 * processed event is never landed twice.
 */
export async function processSlackEventEntry(db: Db, entry: OutboxRow, leaseToken: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(slackEvents)
      .where(and(eq(slackEvents.id, entry.subjectId ?? ""), isNull(slackEvents.processedAt)))
      .for("update");
    if (row) {
      await landSlackEvent(tx, row.payload);
      await tx.update(slackEvents).set({ processedAt: new Date() }).where(eq(slackEvents.id, row.id));
    }
    await finishOutbox(tx, entry.id, leaseToken, { status: "done" });
  });
}

/**
 * Recovery: stored events still unprocessed after `olderThanMs` that have no pending outbox entry
 * (stored before processing went through the outbox, or whose inbox was connected only later) get
 * one, for the relay. Returns how many were enqueued.
 */
export async function recoverSlackEvents(db: Db, olderThanMs = 60_000): Promise<number> {
  const rows = await db
    .select({ id: slackEvents.id, payload: slackEvents.payload })
    .from(slackEvents)
    .where(
      and(
        isNull(slackEvents.processedAt),
        lt(slackEvents.createdAt, new Date(Date.now() - olderThanMs)),
        sql`not exists (select 1 from ${outbox} where ${outbox.subjectId} = ${slackEvents.id} and ${outbox.kind} = ${SLACK_EVENT_KIND} and ${outbox.status} = 'pending')`,
      ),
    )
    .limit(500);
  let enqueued = 0;
  for (const r of rows) {
    const inbox = await inboxByConnection(db, CHANNEL, routeOf(r.payload).address);
    if (!inbox) {
      await db.update(slackEvents).set({ processedAt: new Date() }).where(eq(slackEvents.id, r.id));
      continue;
    }
    await enqueueOutbox(db, { orgId: inbox.orgId, kind: SLACK_EVENT_KIND, subjectId: r.id, payload: {} });
    enqueued++;
  }
  if (enqueued > 0) log.info("slack: unprocessed events re-enqueued", { count: enqueued });
  return enqueued;
}

/** Lands one stored event's payload in its inbox (nothing when the event is no message the app takes). */
async function landSlackEvent(tx: DbOrTx, p: Record<string, unknown>): Promise<void> {
  const event = (p.event ?? {}) as Record<string, unknown>;
  const { appId, address } = routeOf(p);
  const inbox = await inboxByConnection(tx, CHANNEL, address);
  if (!inbox || inbox.status !== "active") return;
  const [app] = await tx
    .select()
    .from(slackApps)
    .where(and(eq(slackApps.orgId, inbox.orgId), eq(slackApps.appId, appId), eq(slackApps.status, "active")));
  if (!app) return;
  // Edits, joins, the bot's own posts: not messages of a conversation.
  if (typeof event.subtype === "string" || typeof event.bot_id === "string") return;
  let ambient = false;
  if (event.type === "app_mention" || (event.type === "message" && event.channel_type === "im")) ambient = false;
  else if (event.type === "message" && app.contextMode === "ambient" && app.ambientMode === "store") {
    // A mention arrives as app_mention too: that one is the message.
    if (str(event.text).includes("<@") && (await mentionsOwnBot(tx, event, address))) return;
    ambient = true;
  } else return;
  const adapter = channelAdapter(CHANNEL);
  if (!adapter.receive) return;
  const inbound = await adapter.receive(tx, Buffer.from(JSON.stringify(event)), {
    connectionAddress: address,
    teamId: str(p.team_id) || null,
    ambient,
  });
  await landInbound(tx, inbound);
}

async function mentionsOwnBot(db: DbOrTx, event: Record<string, unknown>, address: string): Promise<boolean> {
  const [c] = await db
    .select()
    .from(inboxConnections)
    .where(and(eq(inboxConnections.channel, CHANNEL), eq(inboxConnections.address, address)));
  if (!c?.secretCiphertext) return false;
  const { botUserId } = await openInstallSecret(c.secretCiphertext, address, db);
  return botUserId !== null && str(event.text).includes(`<@${botUserId}>`);
}
