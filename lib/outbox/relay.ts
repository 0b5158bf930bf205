import { and, asc, eq, inArray, isNull, lt, notInArray, or, sql } from "drizzle-orm";
import { type Db, getDb, getDbHandle } from "@/db";
import { outbox } from "@/db/schema";
import { errorFields, log } from "@/lib/log";
import { OUTBOX_BATCH_HANDLERS, OUTBOX_HANDLERS, type OutboxBatchHandler, type OutboxHandler } from "./handlers";
import { leaseMs, newLeaseToken, type OutboxRow } from "./store";

/**
 * The outbox relay: performs committed outbox entries. The writer of an entry performs it itself
 * right after its commit (`performOutbox` with the lease it wrote); the relay loop (started by
 * `server.ts`) takes over entries whose lease expired — their process died — claiming them with
 * `FOR UPDATE SKIP LOCKED` so concurrent relays never take the same one.
 */

const MAX_ATTEMPTS = 10;

/**
 * Entries this process is performing now, whatever module instance performs them (server.ts and
 * the Next.js bundles load this module separately): the relay never takes one of its own process's
 * running handoffs over, however long the transport takes past the lease.
 */
const performing: Set<string> = ((globalThis as { __svcOutboxPerforming?: Set<string> }).__svcOutboxPerforming ??=
  new Set<string>());
const POLL_MS = 5_000;

/**
 * Runs the entry's handler (its kind's, or `handler` when the writer performs its own entry) under
 * the lease `token` and returns what the handler returned. A throwing handler is retried later with
 * backoff (undefined is returned).
 */
export async function performOutbox(
  db: Db,
  row: OutboxRow,
  token: string,
  handler: OutboxHandler | undefined = OUTBOX_HANDLERS[row.kind],
): Promise<unknown> {
  performing.add(row.id);
  try {
    if (!handler) throw new Error(`no outbox handler for ${row.kind}`);
    return await handler(db, row, token);
  } catch (err) {
    log.error("outbox entry failed", { id: row.id, kind: row.kind, attempts: row.attempts + 1, ...errorFields(err) });
    await recordFailure(db, row, token, err);
  } finally {
    performing.delete(row.id);
  }
}

/** A failed attempt: due again after a backoff, or `failed` after the last attempt (only under the lease `token`; an entry already finished is untouched). */
async function recordFailure(db: Db, row: OutboxRow, token: string, err: unknown): Promise<void> {
  const attempts = row.attempts + 1;
  const reason = err instanceof Error ? err.message : String(err);
  const retryAt = new Date(Date.now() + Math.min(600_000, 1000 * 2 ** attempts));
  await db
    .update(outbox)
    .set(
      attempts >= MAX_ATTEMPTS
        ? { status: "failed", lastError: reason, leaseUntil: null, doneAt: sql`now()` }
        : { lastError: reason, leaseUntil: retryAt, attempts },
    )
    .where(and(eq(outbox.id, row.id), eq(outbox.leaseToken, token), eq(outbox.status, "pending")));
}

/**
 * Claims up to `limit` pending entries whose lease expired (all pending entries with
 * `ignoreLeases`: the embedded database at start, where no other process can hold one).
 */
export async function claimOutbox(
  db: Db,
  limit: number,
  opts: { ignoreLeases?: boolean; ids?: string[] } = {},
): Promise<{ row: OutboxRow; token: string }[]> {
  return db.transaction(async (tx) => {
    const due = opts.ignoreLeases ? undefined : or(isNull(outbox.leaseUntil), lt(outbox.leaseUntil, sql`now()`));
    const picked = await tx
      .select({ id: outbox.id })
      .from(outbox)
      .where(
        and(
          eq(outbox.status, "pending"),
          due,
          opts.ids ? inArray(outbox.id, opts.ids) : undefined,
          performing.size > 0 ? notInArray(outbox.id, [...performing]) : undefined,
        ),
      )
      .orderBy(asc(outbox.createdAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    if (picked.length === 0) return [];
    const token = newLeaseToken();
    const rows = await tx
      .update(outbox)
      .set({ leaseToken: token, leaseUntil: new Date(Date.now() + leaseMs()) })
      .where(
        inArray(
          outbox.id,
          picked.map((p) => p.id),
        ),
      )
      .returning();
    return rows.map((row) => ({ row, token }));
  });
}

/** Entries claimed at once by the drain. */
const DRAIN_BATCH = 100;

/**
 * Performs every claimable entry, one batch after another; returns how many it ran. A batch's
 * entries of a kind with a batch handler (`OUTBOX_BATCH_HANDLERS`: message handoffs, e.g. a
 * broadcast's) are performed together, the others one after another.
 */
export async function drainOutbox(db: Db, opts: { ignoreLeases?: boolean; ids?: string[] } = {}): Promise<number> {
  let ran = 0;
  for (;;) {
    const batch = await claimOutbox(db, DRAIN_BATCH, opts);
    if (batch.length === 0) return ran;
    // One claim, one token: the batch kinds' entries by kind, the rest one after another.
    const token = batch[0]?.token ?? "";
    const batched = new Map<string, OutboxRow[]>();
    for (const { row } of batch) {
      if (OUTBOX_BATCH_HANDLERS[row.kind]) batched.set(row.kind, [...(batched.get(row.kind) ?? []), row]);
      else await performOutbox(db, row, token);
    }
    for (const [kind, rows] of batched) {
      const many = OUTBOX_BATCH_HANDLERS[kind];
      if (many && rows.length > 1) await performOutboxBatch(db, rows, token, many);
      else for (const row of rows) await performOutbox(db, row, token);
    }
    ran += batch.length;
    opts = { ...opts, ignoreLeases: false };
  }
}

/**
 * Runs a batch handler over entries claimed under one lease `token`; if it throws, each entry it
 * did not finish is retried later with backoff, as `performOutbox` does for one.
 */
async function performOutboxBatch(db: Db, rows: OutboxRow[], token: string, handler: OutboxBatchHandler) {
  for (const row of rows) performing.add(row.id);
  try {
    await handler(db, rows, token);
  } catch (err) {
    log.error("outbox batch failed", { count: rows.length, kind: rows[0]?.kind, ...errorFields(err) });
    for (const row of rows) await recordFailure(db, row, token, err);
  } finally {
    for (const row of rows) performing.delete(row.id);
  }
}

/** Takes over one entry if its lease expired and performs it; false when someone else holds it. */
export async function takeOverOutbox(db: Db, id: string): Promise<boolean> {
  const [claimed] = await claimOutbox(db, 1, { ids: [id] });
  if (!claimed) return false;
  await performOutbox(db, claimed.row, claimed.token);
  return true;
}

let timer: NodeJS.Timeout | undefined;
let running: Promise<unknown> | undefined;
let again = false;

/**
 * The started relay's "drain now", shared by every module instance of this process (server.ts
 * starts the relay; the workflow functions that write entries run in the Next.js bundles).
 */
const kick = globalThis as { __svcOutboxKick?: () => void };

/**
 * Starts the relay loop of this process: first recovery (on the embedded database every pending
 * entry belongs to a process that died, since only one process opens it), then a poll for
 * entries whose lease expired, and a drain whenever a writer kicks it (`kickOutboxRelay`).
 */
export async function startOutboxRelay(): Promise<void> {
  if (timer) return;
  const handle = await getDbHandle();
  const db = await getDb();
  const recovered = await drainOutbox(db, { ignoreLeases: handle.kind === "pglite" });
  if (recovered > 0) log.info("outbox: recovered unfinished handoffs", { count: recovered });
  const drain = () => {
    if (running) {
      again = true;
      return;
    }
    again = false;
    running = drainOutbox(db)
      .catch((err: unknown) => log.error("outbox relay failed", errorFields(err)))
      .finally(() => {
        running = undefined;
        if (again) drain();
      });
  };
  timer = setInterval(drain, POLL_MS);
  timer.unref();
  kick.__svcOutboxKick = drain;
}

/**
 * Asks this process's relay (when started) to drain now rather than at its next poll: for a writer
 * whose committed entries are left to the relay (a broadcast chunk's handoffs), after its commit.
 */
export function kickOutboxRelay(): void {
  kick.__svcOutboxKick?.();
}

export async function stopOutboxRelay(): Promise<void> {
  if (timer) clearInterval(timer);
  timer = undefined;
  kick.__svcOutboxKick = undefined;
  await running;
}
