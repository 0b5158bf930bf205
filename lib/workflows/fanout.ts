import { and, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { fanoutChunks, fanoutRows, fanouts } from "@/db/schema";
import { publishWorkflowEvents, publishWorkflowEventsNow } from "./publish";
import { fanoutChunk, fanoutRequested } from "./workflow-events";

/**
 * The fan-out primitive (broadcasts, letter batches): a job pages the members of a source into
 * chunks and applies each chunk exactly once, resumably.
 *
 * - `startFanout` stores the job and publishes `svc/fanout.requested` in the caller's transaction.
 * - The orchestrator (`fanout-orchestrate`) plans the chunks a window at a time — each window is one
 *   memoized step that computes its chunks' boundaries (keyset bounds, never the members) and
 *   publishes one `svc/fanout.chunk` event per chunk with a deterministic id (`fanout:<id>:<n>`), so
 *   a resumed or retried orchestrator re-sends nothing new: repeated ids are dropped.
 * - A chunk worker (`fanout-chunk`) applies a chunk in one transaction that first inserts its
 *   `fanout_chunks` row (`ON CONFLICT DO NOTHING`): a chunk already applied is skipped, so a crash
 *   anywhere, a retried step or a duplicated event never applies a chunk twice. Sinks also insert
 *   with `ON CONFLICT` on the per-member key.
 *
 * A kind registers its source (boundaries, then the members of one chunk) and its sink, and may
 * register `prepare`: work done before the chunk's transaction (skipped for an applied chunk).
 */
export interface FanoutKind {
  /** Up to `chunks` consecutive chunk bounds after `after` (null: from the start); [] when done. */
  bounds(
    db: DbOrTx,
    params: Record<string, unknown>,
    after: string | null,
    chunkSize: number,
    chunks: number,
  ): Promise<{ after: string | null; last: string }[]>;
  /** The members of one chunk: keys in (`after`, `last`]. */
  members(
    db: DbOrTx,
    params: Record<string, unknown>,
    after: string | null,
    last: string,
  ): Promise<{ key: string; data: Record<string, unknown> }[]>;
  /**
   * Optional slow work for a chunk done before its transaction (rendering, storing files), so the
   * transaction stays short; its result goes to `apply`. Runs again if the chunk is retried, so it
   * must be repeatable (same inputs, same outputs, idempotent writes).
   */
  prepare?(
    db: Db,
    params: Record<string, unknown>,
    members: { key: string; data: Record<string, unknown> }[],
  ): Promise<unknown>;
  /** Optional: called after a chunk's transaction committed rows (e.g. to hand them on at once). */
  committed?(params: Record<string, unknown>, rows: number): void;
  /** Applies a chunk inside its transaction; returns the rows written. */
  apply(
    tx: DbOrTx,
    fanoutId: string,
    params: Record<string, unknown>,
    members: { key: string; data: Record<string, unknown> }[],
    prepared?: unknown,
  ): Promise<number>;
}

/** Chunks one orchestrator step plans (and one `sendEvent` sends). */
export const PLAN_WINDOW = 50;

const kinds = new Map<string, FanoutKind>();

export function registerFanoutKind(kind: string, impl: FanoutKind): void {
  kinds.set(kind, impl);
}

function kindOf(kind: string): FanoutKind {
  const impl = kinds.get(kind);
  if (!impl) throw new Error(`No fan-out kind ${kind} is registered.`);
  return impl;
}

/** Stores a fan-out and requests it, in the caller's transaction; returns its id and the after-commit hook. */
export async function startFanout(
  tx: DbOrTx,
  input: { kind: string; params?: Record<string, unknown>; chunkSize?: number },
): Promise<{ id: string; afterCommit: () => Promise<void> }> {
  kindOf(input.kind);
  const [row] = await tx
    .insert(fanouts)
    .values({ kind: input.kind, params: input.params ?? {}, chunkSize: input.chunkSize ?? 500 })
    .returning({ id: fanouts.id });
  if (!row) throw new Error("fan-out insert returned nothing");
  const afterCommit = await publishWorkflowEvents(tx, [
    fanoutRequested.create({ fanoutId: row.id }, { id: `fanout:${row.id}` }),
  ]);
  return { id: row.id, afterCommit };
}

export interface ChunkPlan {
  chunk: number;
  after: string | null;
  last: string;
}

/** The next window of chunks after chunk `from` (whose upper bound is `after`). */
export async function planWindow(db: Db, fanoutId: string, from: number, after: string | null): Promise<ChunkPlan[]> {
  const [f] = await db.select().from(fanouts).where(eq(fanouts.id, fanoutId));
  if (!f) return [];
  const bounds = await kindOf(f.kind).bounds(db, f.params, after, f.chunkSize, PLAN_WINDOW);
  return bounds.map((b, i) => ({ chunk: from + i, after: b.after, last: b.last }));
}

/** Plans the next window and publishes its chunk events (ids `fanout:<id>:<chunk>`; repeats are dropped). */
export async function planAndSend(db: Db, fanoutId: string, from: number, after: string | null): Promise<ChunkPlan[]> {
  const plans = await planWindow(db, fanoutId, from, after);
  if (plans.length > 0) {
    await publishWorkflowEventsNow(
      db,
      plans.map((p) => fanoutChunk.create({ fanoutId, ...p }, { id: `fanout:${fanoutId}:${p.chunk}` })),
    );
  }
  return plans;
}

/** Records how many chunks the fan-out has (planning is over) and completes it if they are all applied. */
export async function finishPlanning(db: Db, fanoutId: string, chunksTotal: number): Promise<void> {
  await db
    .update(fanouts)
    .set({
      chunksTotal,
      status: sql`case when ${fanouts.chunksDone} >= ${chunksTotal} then 'completed' else ${fanouts.status} end`,
      completedAt: sql`case when ${fanouts.chunksDone} >= ${chunksTotal} then now() else null end`,
    })
    .where(eq(fanouts.id, fanoutId));
}

/** Applies one chunk exactly once; returns the rows written (0 when it was applied before). */
export async function applyChunk(db: Db, fanoutId: string, plan: ChunkPlan): Promise<number> {
  let prepared: unknown;
  const [head] = await db.select().from(fanouts).where(eq(fanouts.id, fanoutId));
  const headKind = head ? kindOf(head.kind) : undefined;
  if (head && headKind?.prepare) {
    const [done] = await db
      .select({ chunk: fanoutChunks.chunk })
      .from(fanoutChunks)
      .where(and(eq(fanoutChunks.fanoutId, fanoutId), eq(fanoutChunks.chunk, plan.chunk)));
    if (done) return 0;
    const members = await headKind.members(db, head.params, plan.after, plan.last);
    prepared = await headKind.prepare(db, head.params, members);
  }
  let committed: ((rows: number) => void) | undefined;
  const rows = await db.transaction(async (tx) => {
    const [f] = await tx.select().from(fanouts).where(eq(fanouts.id, fanoutId));
    if (!f) return 0;
    const kind = kindOf(f.kind);
    committed = kind.committed && ((n) => kind.committed?.(f.params, n));
    const claimed = await tx
      .insert(fanoutChunks)
      .values({ fanoutId, chunk: plan.chunk, rows: 0 })
      .onConflictDoNothing()
      .returning({ chunk: fanoutChunks.chunk });
    if (claimed.length === 0) return 0;
    const members = await kind.members(tx, f.params, plan.after, plan.last);
    const rows = await kind.apply(tx, fanoutId, f.params, members, prepared);
    await tx
      .update(fanoutChunks)
      .set({ rows })
      .where(and(eq(fanoutChunks.fanoutId, fanoutId), eq(fanoutChunks.chunk, plan.chunk)));
    await tx
      .update(fanouts)
      .set({
        chunksDone: sql`${fanouts.chunksDone} + 1`,
        rowsDone: sql`${fanouts.rowsDone} + ${rows}`,
        status: sql`case when ${fanouts.chunksTotal} is not null and ${fanouts.chunksDone} + 1 >= ${fanouts.chunksTotal} then 'completed' else ${fanouts.status} end`,
        completedAt: sql`case when ${fanouts.chunksTotal} is not null and ${fanouts.chunksDone} + 1 >= ${fanouts.chunksTotal} then now() else null end`,
      })
      .where(eq(fanouts.id, fanoutId));
    return rows;
  });
  if (rows > 0) committed?.(rows);
  return rows;
}

/** Rows per multi-row INSERT. */
const INSERT_CHUNK = 1000;

/** The generic sink: one `fanout_rows` row per member, `ON CONFLICT` on the member's key. */
export async function insertRows(
  tx: DbOrTx,
  fanoutId: string,
  members: { key: string; data: Record<string, unknown> }[],
): Promise<number> {
  let n = 0;
  for (let i = 0; i < members.length; i += INSERT_CHUNK) {
    const written = await tx
      .insert(fanoutRows)
      .values(members.slice(i, i + INSERT_CHUNK).map((m) => ({ fanoutId, memberKey: m.key, payload: m.data })))
      .onConflictDoNothing()
      .returning({ key: fanoutRows.memberKey });
    n += written.length;
  }
  return n;
}

/**
 * `synthetic`: `params.total` members `m0000001`… with a small payload, into `fanout_rows` — the
 * benchmark's and the tests' kind (bounds are arithmetic, so paging costs nothing).
 */
const key = (i: number) => `m${String(i).padStart(7, "0")}`;
const index = (k: string | null) => (k ? Number(k.slice(1)) : 0);
registerFanoutKind("synthetic", {
  bounds(_db, params, after, chunkSize, chunks) {
    const total = Number(params.total ?? 0);
    const out: { after: string | null; last: string }[] = [];
    for (let start = index(after); out.length < chunks && start < total; start += chunkSize) {
      out.push({ after: start === 0 ? null : key(start), last: key(Math.min(total, start + chunkSize)) });
    }
    return Promise.resolve(out);
  },
  members(_db, _params, after, last) {
    const out: { key: string; data: Record<string, unknown> }[] = [];
    for (let i = index(after) + 1; i <= index(last); i++) out.push({ key: key(i), data: { n: i } });
    return Promise.resolve(out);
  },
  apply: (tx, fanoutId, _params, members) => insertRows(tx, fanoutId, members),
});
