import { SQL_UUIDV7, uuidv7 } from "@/db/ids";
import { and, eq, gt, inArray, isNotNull, lte, type SQL, sql } from "drizzle-orm";
import { type Db, type DbHandle, type DbOrTx, getDb, getDbHandle } from "@/db";
import { ledgerEvents, webhookQueue, webhooks } from "@/db/schema";
import { env } from "@/lib/env";
import { errorFields, log } from "@/lib/log";
import { admit, gcra } from "@/lib/ratelimit/gcra";
import { wakeup } from "@/lib/workflows/executor/signal";
import { post, type PostOutcome, type WebhookEnvelope, type WebhookRow } from "./deliver";
import { webhookUrlProblem } from "./url-guard";

/**
 * The webhook dispatcher. Deliveries are rows of `webhook_queue`, written in the transaction that
 * appends the event (or redrives it), so a committed event is never lost and a rolled-back one is
 * never sent. Each process runs a few dispatch loops; a loop claims a batch of due rows in one
 * transaction (under an advisory lock, `FOR UPDATE SKIP LOCKED`: processes share the queue),
 * writes a `pending` delivery-log row per attempt, posts the batch concurrently over the guarded
 * keep-alive pool (undici `request` on `guardedAgent`), then records every outcome in one
 * statement: the log rows, the endpoints' failure counts and breaker, and the queue (deleted when
 * done, else due again on the retry schedule or `Retry-After`). Only failing attempts go through
 * the schedule. A claim is 50 rows, up to 200 while a backlog lasts (BATCH below).
 *
 * A claimed row is due again when its lease ends (`dueAt` is moved past it), so a delivery that a
 * killed process was making is made again: at least once, with duplicates limited to the attempts
 * in flight when it died. Its `pending` log row is marked failed ("interrupted") by the next claim.
 *
 * Loops wake on commit: `queueDeliveries` sends `NOTIFY svc_webhooks` in the appending transaction,
 * and this process's listener rings one idle loop (see Bell). An idle dispatcher runs no statement
 * but a safety poll (IDLE_POLL_MS), and a trickle of events costs one claim per wake-up, not one
 * per loop.
 * `rateLimitPerSecond` paces an endpoint with a GCRA whose state (`webhooks.rate_tat`) is written
 * under the claim lock, so it holds across processes.
 */

export const WEBHOOK_CHANNEL = "svc_webhooks";
const signal = wakeup(WEBHOOK_CHANNEL);
const CLAIM_LOCK = 7_246_130;
/**
 * Rows one loop claims at once: BATCH, doubled after a full batch whose attempts all took less
 * than FAST_MS (a backlog: fewer, larger transactions), up to BATCH_MAX; back to BATCH after a
 * batch that was not full or had a slow attempt (a slow endpoint gets no more requests queued on
 * its connections than before). And loops per process.
 */
const BATCH = 50;
const BATCH_MAX = 200;
const FAST_MS = 1000;
const LOOPS = 3;
/**
 * While idle a loop sleeps until a commit that queues a delivery rings it (see Bell), or this long:
 * a safety net for a notification lost with a dropped connection (PostgreSQL; other processes'
 * events reach this one by NOTIFY too). On PGlite every delivery is queued by this process.
 */
const IDLE_POLL_MS = 10_000;
const IDLE_POLL_PGLITE_MS = 60_000;
/** Pause after an error before the loop tries again. */
const ERROR_PAUSE_MS = 1000;
const leaseMs = () => env.WEBHOOK_TIMEOUT_MS + 5000;

export interface QueuedDelivery {
  orgId: string;
  webhookId: string;
  eventId: string;
  replay?: boolean;
}

/** Queues deliveries in the caller's transaction (one already queued for the same event and endpoint is kept). */
export async function queueDeliveries(tx: DbOrTx, rows: QueuedDelivery[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await tx
    .insert(webhookQueue)
    .values(
      rows.map((r) => ({ orgId: r.orgId, webhookId: r.webhookId, eventId: r.eventId, replay: r.replay ?? false })),
    )
    .onConflictDoNothing()
    .returning({ id: webhookQueue.id });
  if (inserted.length > 0) await signal.notifyOnCommit(tx);
  return inserted.length;
}

/**
 * Queues delivery of a just-appended event to every webhook subscribed to its type, in the
 * append's transaction. A paused endpoint gets the event logged as failed when its turn comes (so
 * `redrive` sends it after `resume`).
 */
export async function enqueueDeliveries(
  tx: DbOrTx,
  events: readonly { orgId: string; eventId: string; type: string }[],
): Promise<void> {
  const rows: QueuedDelivery[] = [];
  for (const orgId of new Set(events.map((e) => e.orgId))) {
    const mine = events.filter((e) => e.orgId === orgId);
    const types = [...new Set(mine.map((e) => e.type))];
    const targets = await tx
      .select({ id: webhooks.id, events: webhooks.events })
      .from(webhooks)
      .where(
        and(
          eq(webhooks.orgId, orgId),
          sql`${webhooks.events} && array[${sql.join(
            types.map((t) => sql`${t}`),
            sql`, `,
          )}]::text[]`,
        ),
      );
    for (const e of mine)
      for (const t of targets) if (t.events.includes(e.type)) rows.push({ orgId, webhookId: t.id, eventId: e.eventId });
  }
  await queueDeliveries(tx, rows);
}

/**
 * `enqueueDeliveries` as common table expressions of one statement (see `appendEventsCtes`): the
 * events are the rows (`org_id`, `event_id`, `type`) the CTE named `events` returns. `touch` must be
 * read by the statement's final select (it sends the wake-up when a delivery was queued).
 */
export function enqueueDeliveriesCtes(events: string): { ctes: SQL; touch: SQL } {
  const ctes = sql`webhook_q as (
    insert into webhook_queue (id, org_id, webhook_id, event_id)
    select ${sql.raw(SQL_UUIDV7)}, e.org_id, w.id, e.event_id
    from ${sql.raw(events)} e join webhooks w on w.org_id = e.org_id and e.type = any(w.events)
    on conflict do nothing
    returning id),
  webhook_n as (select pg_notify(${WEBHOOK_CHANNEL}, '') from (select 1 from webhook_q limit 1) q)`;
  return { ctes, touch: sql`(select count(*) from webhook_n)` };
}

interface Claimed {
  id: string;
  deliveryId: string;
  attempt: number;
  replay: boolean;
  webhook: WebhookRow;
  envelope: WebhookEnvelope;
}

type Outcome = PostOutcome & { skipped?: boolean };

/** Claims up to `limit` due deliveries, paced per endpoint, with a pending log row each. */
export async function claimDeliveries(db: Db, limit: number): Promise<Claimed[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`);
    // The due rows with their events (none when the event is gone), locked, in one query.
    const due = await tx
      .select({
        q: webhookQueue,
        e: {
          eventId: ledgerEvents.eventId,
          orgId: ledgerEvents.orgId,
          type: ledgerEvents.type,
          createdAt: ledgerEvents.createdAt,
          data: ledgerEvents.data,
        },
        now: sql<Date | string>`now()`,
      })
      .from(webhookQueue)
      .leftJoin(ledgerEvents, eq(ledgerEvents.eventId, webhookQueue.eventId))
      .where(lte(webhookQueue.dueAt, sql`now()`))
      .orderBy(webhookQueue.dueAt)
      .limit(limit)
      .for("update", { of: webhookQueue, skipLocked: true });
    if (due.length === 0) return [];
    const now = new Date(due[0]?.now ?? Date.now()).getTime();
    const hooks = new Map(
      (
        await tx
          .select()
          .from(webhooks)
          .where(inArray(webhooks.id, [...new Set(due.map((d) => d.q.webhookId))]))
      ).map((w) => [w.id, w]),
    );
    const gates = new Map<string, ReturnType<typeof gcra>>();
    const claimed: Claimed[] = [];
    const gone: string[] = [];
    const interrupted: string[] = [];
    for (const { q, e } of due) {
      const w = hooks.get(q.webhookId);
      if (!w || !e || e.orgId !== w.orgId) {
        gone.push(q.id);
        continue;
      }
      if (w.rateLimitPerSecond && w.status === "active") {
        let gate = gates.get(w.id);
        if (!gate) {
          gate = gcra(w.rateTat?.getTime() ?? null, now, 1000 / w.rateLimitPerSecond, w.rateLimitPerSecond);
          gates.set(w.id, gate);
        }
        const freeAt = admit(gate);
        if (freeAt !== null) {
          await tx
            .update(webhookQueue)
            .set({ dueAt: new Date(freeAt) })
            .where(eq(webhookQueue.id, q.id));
          continue;
        }
      }
      if (q.deliveryId) interrupted.push(q.deliveryId);
      claimed.push({
        id: q.id,
        deliveryId: uuidv7(),
        attempt: q.attempts + 1,
        replay: q.replay,
        webhook: w,
        envelope: { eventId: e.eventId, type: e.type, createdAt: e.createdAt.toISOString(), data: e.data },
      });
    }
    if (gone.length > 0) await tx.delete(webhookQueue).where(inArray(webhookQueue.id, gone));
    for (const [id, gate] of gates)
      if (gate.changed)
        await tx
          .update(webhooks)
          .set({ rateTat: new Date(gate.tat) })
          .where(eq(webhooks.id, id));
    if (interrupted.length > 0) {
      await tx.execute(
        sql`update webhook_deliveries set status = 'failed', error = 'interrupted: the process making this attempt stopped' where id in (${sql.join(
          interrupted.map((id) => sql`${id}::uuid`),
          sql`, `,
        )}) and status = 'pending'`,
      );
    }
    if (claimed.length === 0) return [];
    // The pending log rows and the queue rows' lease in one statement, the batch as one JSON parameter.
    const rows = claimed.map((c) => ({
      id: c.id,
      did: c.deliveryId,
      org: c.webhook.orgId,
      hook: c.webhook.id,
      eid: c.envelope.eventId,
      type: c.envelope.type,
      attempt: c.attempt,
      replay: c.replay,
    }));
    await tx.execute(sql`with v as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(id uuid, did uuid, org uuid, hook uuid, eid text, type text, attempt int, replay boolean)
      ), log as (
        insert into webhook_deliveries (id, org_id, webhook_id, event_id, event_type, attempt, status, replay)
        select did, org, hook, eid, type, attempt, 'pending', replay from v
      )
      update webhook_queue q set attempts = q.attempts + 1, delivery_id = v.did, due_at = now() + ${`${leaseMs()} milliseconds`}::interval
      from v where q.id = v.id`);
    return claimed;
  });
}

/** The delay before attempt `next` (1-based), or null when the schedule is used up. */
function retryDelay(next: number, retryAfter: number | null): number | null {
  const schedule = env.WEBHOOK_RETRY_SCHEDULE;
  if (next > schedule.length) return null;
  return retryAfter ?? schedule[next - 1] ?? 0;
}

/**
 * Records a batch's outcomes in one statement (atomic without a transaction): the log rows, the
 * queue (deleted when done, else due again), and per endpoint the failures since its last
 * success, 410 → paused `gone`, and the breaker.
 */
export async function recordDeliveries(db: DbOrTx, results: { c: Claimed; o: Outcome }[]): Promise<void> {
  if (results.length === 0) return;
  const rows = results.map(({ c, o }) => {
    const retry = o.ok || o.skipped || o.responseStatus === 410 ? null : retryDelay(c.attempt + 1, o.retryAfter);
    return {
      id: c.id,
      did: c.deliveryId,
      status: o.ok ? "succeeded" : "failed",
      rs: o.responseStatus,
      ms: o.durationMs,
      err: o.error,
      snip: o.snippet,
      req: o.request,
      rh: o.responseHeaders,
      retry,
    };
  });
  // Endpoints: failures since the last success, in the batch's order; 410 disables; the breaker pauses.
  const byHook = new Map<string, Outcome[]>();
  for (const { c, o } of results) {
    if (o.skipped) continue;
    const list = byHook.get(c.webhook.id);
    if (list) list.push(o);
    else byHook.set(c.webhook.id, [o]);
  }
  const hooks = [...byHook].map(([id, outcomes]) => {
    const lastOk = outcomes.map((o) => o.ok).lastIndexOf(true);
    return {
      id,
      reset: lastOk >= 0,
      failures: outcomes.length - lastOk - 1,
      gone: outcomes.some((o) => !o.ok && o.responseStatus === 410),
    };
  });
  const failures = sql`(case when h.reset then h.failures else w.consecutive_failures + h.failures end)`;
  const trips = sql`(not h.gone and w.status = 'active' and ${failures} >= ${env.WEBHOOK_BREAKER_THRESHOLD}::int)`;
  // Queue writes are guarded by the attempt's log row: a row another process took over (lease ended) is its own.
  await db.execute(sql`with v as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as v(id uuid, did uuid, status text, rs int, ms int, err text, snip text, req jsonb, rh jsonb, retry int)
    ), log as (
      update webhook_deliveries d set status = v.status, response_status = v.rs, duration_ms = v.ms, error = v.err, response_snippet = v.snip, request = v.req, response_headers = v.rh
      from v where d.id = v.did
    ), done as (
      delete from webhook_queue q using v where v.retry is null and q.id = v.id and q.delivery_id = v.did
    ), again as (
      update webhook_queue q set delivery_id = null, due_at = now() + v.retry * interval '1 millisecond'
      from v where v.retry is not null and q.id = v.id and q.delivery_id = v.did
    )
    update webhooks w set
      consecutive_failures = ${failures},
      last_delivery_at = now(),
      status = case when h.gone or ${trips} then 'paused' else w.status end,
      paused_reason = case when h.gone then 'gone' when ${trips} then 'auto:delivery_failures' else w.paused_reason end,
      auto_paused = case when ${trips} then true else w.auto_paused end,
      auto_paused_at = case when ${trips} then now() else w.auto_paused_at end
    from jsonb_to_recordset(${JSON.stringify(hooks)}::jsonb) as h(id uuid, reset boolean, failures int, gone boolean)
    where w.id = h.id`);
}

/** One attempt: a paused endpoint is logged as failed without a request (redrive sends it after resume). */
async function attempt(c: Claimed, problem: string | null | undefined): Promise<Outcome> {
  if (c.webhook.status !== "active") {
    return {
      ok: false,
      skipped: true,
      responseStatus: null,
      durationMs: 0,
      error: `endpoint ${c.webhook.pausedReason ?? "paused"}`,
      snippet: null,
      retryAfter: null,
      request: null,
      responseHeaders: null,
    };
  }
  return post(c.webhook, c.envelope, problem);
}

/** Claims, posts and records one batch: the number of deliveries attempted and the slowest attempt's time. */
export async function dispatchOnce(db: Db, limit = BATCH): Promise<{ attempted: number; slowestMs: number }> {
  const claimed = await claimDeliveries(db, limit);
  if (claimed.length === 0) return { attempted: 0, slowestMs: 0 };
  // The URL check (SSRF, before sending) once per endpoint and batch; the connector checks each connection again.
  const problems = new Map<string, Promise<string | null>>();
  for (const c of claimed)
    if (c.webhook.status === "active" && !problems.has(c.webhook.id))
      problems.set(c.webhook.id, webhookUrlProblem(c.webhook.url));
  const results = await Promise.all(
    claimed.map(async (c) => ({ c, o: await attempt(c, await problems.get(c.webhook.id)) })),
  );
  await recordDeliveries(db, results);
  return { attempted: claimed.length, slowestMs: Math.max(...results.map((r) => r.o.durationMs)) };
}

/** The next claim's size (see BATCH). */
export function nextBatchSize(size: number, attempted: number, slowestMs: number): number {
  return attempted === size && slowestMs < FAST_MS ? Math.min(BATCH_MAX, size * 2) : BATCH;
}

/** The soonest future time a queued delivery comes due (idle loops' timer). */
async function nextDue(db: Db): Promise<number | null> {
  const [row] = await db
    .select({ at: sql<Date | string | null>`min(${webhookQueue.dueAt})` })
    .from(webhookQueue)
    .where(gt(webhookQueue.dueAt, sql`now()`));
  return row?.at ? new Date(row.at).getTime() : null;
}

/**
 * Deliveries a dead process was making become due now. Only for the embedded database, whose
 * single owner is this process (on PostgreSQL they come due when their lease ends).
 */
export async function recoverInterruptedDeliveries(db: Db): Promise<number> {
  const rows = await db
    .update(webhookQueue)
    .set({ dueAt: sql`now()` })
    .where(isNotNull(webhookQueue.deliveryId))
    .returning({ id: webhookQueue.id });
  return rows.length;
}

/**
 * The wake-ups of this process's dispatch loops. Every commit that queues a delivery sends `NOTIFY
 * svc_webhooks`, which the database delivers on commit to every listening process (PGlite: its one
 * owner, this process); each ring wakes ONE idle loop, and a loop whose claim came back full rings
 * again (more is due: the next idle loop joins). A ring while every loop is busy is not lost: a
 * loop compares the count it saw before its claim with the count after it, and claims again at
 * once when it moved. So a trickle of events costs one claim per event (not one per loop), and an
 * idle dispatcher costs nothing but the slow safety poll.
 */
class Bell {
  rings = 0;
  private waiters: (() => void)[] = [];
  ring(): void {
    this.rings++;
    this.waiters.shift()?.();
  }
  /** Resolves at once if the bell rang since `seen`, else on the next ring for this waiter, after `ms`, or on abort. */
  wait(seen: number, ms: number, abort: AbortSignal): Promise<void> {
    if (this.rings !== seen || abort.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        abort.removeEventListener("abort", done);
        const i = this.waiters.indexOf(done);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve();
      };
      const timer = setTimeout(done, ms);
      abort.addEventListener("abort", done);
      this.waiters.push(done);
    });
  }
}

const STATE = Symbol.for("svc.webhooks.dispatcher");
const LISTENING = Symbol.for("svc.webhooks.dispatcher.listening");
type Holder = {
  [STATE]?: { controller: AbortController; loops: Promise<void>[]; bell: Bell };
  /** The database handle this process listens on (once per handle; it rings the running loops' bell). */
  [LISTENING]?: DbHandle;
};

/**
 * One dispatch loop. Busy: claims again at once while there is work. Idle: sleeps until rung, or
 * until the soonest queued delivery (a retry, a lease that ends) is due, or the safety poll (`idlePollMs`: a notification lost with a dropped connection).
 */
async function loop(index: number, bell: Bell, idlePollMs: number, abort: AbortSignal): Promise<void> {
  const db = await getDb();
  let size = BATCH;
  while (!abort.aborted) {
    const seen = bell.rings;
    try {
      const { attempted, slowestMs } = await dispatchOnce(db, size);
      // A full batch: more is likely due, so another idle loop claims beside this one.
      if (attempted === size) bell.ring();
      size = nextBatchSize(size, attempted, slowestMs);
      if (attempted > 0) continue;
      // Every loop that goes idle looks at the soonest queued delivery: the loop that just recorded
      // a retry (or a lease) keeps its timer, so a retry due in seconds is not left to a loop that
      // went to sleep before it existed.
      let idle = idlePollMs;
      const next = await nextDue(db);
      if (next) idle = Math.min(idlePollMs, Math.max(5, next - Date.now()));
      await bell.wait(seen, idle, abort);
    } catch (err) {
      if (abort.aborted) break;
      log.error("webhook dispatcher error", { loop: index, ...errorFields(err) });
      await new Promise((r) => setTimeout(r, ERROR_PAUSE_MS));
    }
  }
}

/** Starts this process's dispatch loops (idempotent). */
export async function startWebhookDispatcher(): Promise<void> {
  const holder = globalThis as Holder;
  if (holder[STATE]) return;
  const handle = await getDbHandle();
  if (handle.kind === "pglite") {
    const recovered = await recoverInterruptedDeliveries(await getDb());
    if (recovered > 0) log.info("webhook deliveries interrupted by a stop are due again", { recovered });
  }
  if (holder[STATE]) return;
  const bell = new Bell();
  const controller = new AbortController();
  holder[STATE] = { controller, loops: [], bell };
  if (holder[LISTENING] !== handle) {
    holder[LISTENING] = handle;
    await handle.listen(WEBHOOK_CHANNEL, () => holder[STATE]?.bell.ring());
  }
  // On PGlite this process is the database's only user: every queued delivery rings here.
  const idlePollMs = handle.kind === "pglite" ? IDLE_POLL_PGLITE_MS : IDLE_POLL_MS;
  holder[STATE].loops = Array.from({ length: LOOPS }, (_, i) => loop(i, bell, idlePollMs, controller.signal));
  log.info("webhook dispatcher started", { loops: LOOPS, batch: BATCH, batchMax: BATCH_MAX, idlePollMs });
}

/** Stops the loops after the batches in hand are recorded. */
export async function stopWebhookDispatcher(): Promise<void> {
  const holder = globalThis as Holder;
  const state = holder[STATE];
  if (!state) return;
  delete holder[STATE];
  state.controller.abort();
  await Promise.all(state.loops);
}

/** Deliveries still queued for an endpoint (tests, operators). */
export async function queuedDeliveries(db: DbOrTx, webhookId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(webhookQueue)
    .where(and(eq(webhookQueue.webhookId, webhookId)));
  return row?.n ?? 0;
}
