import { and, asc, eq, inArray, isNull, lt, notInArray, or, sql } from "drizzle-orm";
import { type Db, getDb, getDbHandle } from "@/db";
import { outbox } from "@/db/schema";
import { errorFields, log } from "@/lib/log";
import { OUTBOX_HANDLERS, type OutboxHandler } from "./handlers";
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
    const attempts = row.attempts + 1;
    const reason = err instanceof Error ? err.message : String(err);
    log.error("outbox entry failed", { id: row.id, kind: row.kind, attempts, ...errorFields(err) });
    const retryAt = new Date(Date.now() + Math.min(600_000, 1000 * 2 ** attempts));
    await db
      .update(outbox)
      .set(
        attempts >= MAX_ATTEMPTS
          ? { status: "failed", lastError: reason, leaseUntil: null, doneAt: sql`now()` }
          : { lastError: reason, leaseUntil: retryAt, attempts },
      )
      .where(and(eq(outbox.id, row.id), eq(outbox.leaseToken, token), eq(outbox.status, "pending")));
  } finally {
    performing.delete(row.id);
  }
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

/** Performs every claimable entry, one batch after another; returns how many it ran. */
export async function drainOutbox(db: Db, opts: { ignoreLeases?: boolean; ids?: string[] } = {}): Promise<number> {
  let ran = 0;
  for (;;) {
    const batch = await claimOutbox(db, 20, opts);
    if (batch.length === 0) return ran;
    for (const { row, token } of batch) await performOutbox(db, row, token);
    ran += batch.length;
    opts = { ...opts, ignoreLeases: false };
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

/**
 * Starts the relay loop of this process: first recovery (on the embedded database every pending
 * entry belongs to a process that died, since only one process opens it), then a poll for
 * entries whose lease expired.
 */
export async function startOutboxRelay(): Promise<void> {
  if (timer) return;
  const handle = await getDbHandle();
  const db = await getDb();
  const recovered = await drainOutbox(db, { ignoreLeases: handle.kind === "pglite" });
  if (recovered > 0) log.info("outbox: recovered unfinished handoffs", { count: recovered });
  timer = setInterval(() => {
    if (running) return;
    running = drainOutbox(db)
      .catch((err: unknown) => log.error("outbox relay failed", errorFields(err)))
      .finally(() => (running = undefined));
  }, POLL_MS);
  timer.unref();
}

export async function stopOutboxRelay(): Promise<void> {
  if (timer) clearInterval(timer);
  timer = undefined;
  await running;
}
