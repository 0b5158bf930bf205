import { and, asc, desc, eq, gt, lt, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { ledgerEvents } from "@/db/schema";
import { invalidRequest } from "@/lib/core/errors";
import type { Principal } from "@/lib/auth/principal";
import type { LedgerEvent } from "./ledger";
import { decodeEventCursor, encodeEventCursor } from "./cursor";
import { ensureLedgerListener, waitForAppend } from "./notify";

/**
 * Reading the ledger: `GET /v1/events`. Cursors are encrypted positions in the append order (`cursor.ts`); pages
 * go forward (`oldest`) or back from the newest (`newest`); `wait` long-polls for the first
 * matching append; `tail` returns only the head cursor; `gaps` reports, per partition, sequence
 * numbers missing between the events of the page (window-local; on filtered reads the excluded
 * events show up as gaps).
 */
export interface ReadEventsInput {
  limit: number;
  since?: string;
  cursor?: string;
  inboxId?: string;
  type?: string;
  idempotencyKey?: string;
  order: "oldest" | "newest";
  wait: number;
  tail: boolean;
}

export function toStreamEntry(e: LedgerEvent) {
  return {
    object: "event" as const,
    eventId: e.eventId,
    type: e.type,
    seq: e.seq,
    partitionKey: e.partitionKey,
    inboxId: e.inboxId,
    threadId: e.threadId,
    idempotencyKey: e.idempotencyKey,
    outboundMessageId: e.outboundMessageId,
    messageId: e.messageId,
    providerMessageId: e.providerMessageId,
    occurredAt: e.occurredAt.toISOString(),
    createdAt: e.createdAt.toISOString(),
    data: e.data,
  };
}

/** Per partition, the sequence numbers missing between the page's events of that partition. */
export function findGaps(
  events: Pick<LedgerEvent, "partitionKey" | "seq">[],
): { partitionKey: string; missingSeq: number[] }[] {
  const byPartition = new Map<string, number[]>();
  for (const e of events) byPartition.set(e.partitionKey, [...(byPartition.get(e.partitionKey) ?? []), e.seq]);
  const gaps: { partitionKey: string; missingSeq: number[] }[] = [];
  for (const [partitionKey, seqs] of byPartition) {
    const sorted = [...new Set(seqs)].sort((a, b) => a - b);
    const missing: number[] = [];
    for (let i = 1; i < sorted.length; i++) {
      for (let s = (sorted[i - 1] ?? 0) + 1; s < (sorted[i] ?? 0) && missing.length < 1000; s++) missing.push(s);
    }
    if (missing.length > 0) gaps.push({ partitionKey, missingSeq: missing });
  }
  return gaps;
}

function filters(principal: Principal, input: ReadEventsInput): SQL[] {
  const where: SQL[] = [eq(ledgerEvents.orgId, principal.orgId)];
  if (input.inboxId) where.push(eq(ledgerEvents.inboxId, input.inboxId));
  if (input.type) where.push(eq(ledgerEvents.type, input.type));
  if (input.idempotencyKey) where.push(eq(ledgerEvents.idempotencyKey, input.idempotencyKey));
  return where;
}

export async function readEvents(db: DbOrTx, principal: Principal, input: ReadEventsInput) {
  if (input.since && input.cursor && input.since !== input.cursor)
    throw invalidRequest("Give `since` or its alias `cursor`, not both.", "cursor");
  const cursorParam = input.since ? "since" : "cursor";
  const from = input.since ?? input.cursor;
  const position = from ? await decodeEventCursor(db, principal.orgId, from, cursorParam) : null;
  const where = filters(principal, input);

  if (input.tail) {
    const [head] = await db
      .select({ position: ledgerEvents.position })
      .from(ledgerEvents)
      .where(and(...where))
      .orderBy(desc(ledgerEvents.position))
      .limit(1);
    return {
      object: "list" as const,
      data: [],
      pagination: {
        nextCursor: head ? await encodeEventCursor(db, principal.orgId, head.position) : null,
        hasMore: false,
      },
      gaps: [],
    };
  }

  const newest = input.order === "newest";
  const page = async () => {
    const conditions = [...where];
    if (position !== null)
      conditions.push(newest ? lt(ledgerEvents.position, position) : gt(ledgerEvents.position, position));
    return db
      .select()
      .from(ledgerEvents)
      .where(and(...conditions))
      .orderBy(newest ? desc(ledgerEvents.position) : asc(ledgerEvents.position))
      .limit(input.limit + 1);
  };

  let rows = await page();
  if (rows.length === 0 && input.wait > 0 && !newest) {
    await ensureLedgerListener();
    rows = await page(); // an append may have committed before the listener was up
    const deadline = Date.now() + input.wait * 1000;
    while (rows.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0 || !(await waitForAppend(principal.orgId, left))) break;
      rows = await page();
    }
  }
  const hasMore = rows.length > input.limit;
  const data = hasMore ? rows.slice(0, input.limit) : rows;
  const last = data[data.length - 1];
  return {
    object: "list" as const,
    data: data.map(toStreamEntry),
    pagination: { nextCursor: last ? await encodeEventCursor(db, principal.orgId, last.position) : null, hasMore },
    gaps: findGaps(data),
  };
}

/**
 * The next event of `type` after `since` (or after now when absent), long-polling in the stream's
 * own `wait` slices until `timeoutSeconds` pass or the caller goes away. Returns the event (null on
 * timeout) and the cursor to continue from.
 */
export async function waitForNextEvent(
  db: DbOrTx,
  principal: Principal,
  input: { type: string; inboxId?: string; since?: string; timeoutSeconds: number; signal?: AbortSignal },
) {
  const base = { limit: 1, type: input.type, inboxId: input.inboxId, order: "oldest" as const, tail: false };
  const cursor =
    input.since ??
    (await readEvents(db, principal, { ...base, wait: 0, tail: true })).pagination.nextCursor ??
    undefined;
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  for (;;) {
    const left = Math.ceil((deadline - Date.now()) / 1000);
    const page = await readEvents(db, principal, { ...base, since: cursor, wait: Math.max(0, Math.min(12, left)) });
    const event = page.data[0];
    if (event) return { event, cursor: page.pagination.nextCursor };
    if (left <= 0 || Date.now() >= deadline || input.signal?.aborted) return { event: null, cursor: cursor ?? null };
  }
}
