import { and, asc, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { messages, threads } from "@/db/schema";
import { notFound } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import type { Principal } from "@/lib/auth/principal";
import { attachmentsOf, containsPattern, textPreview, toMessage } from "./read";

type ThreadRow = typeof threads.$inferSelect;

function toThread(t: ThreadRow) {
  return {
    object: "thread" as const,
    id: t.id,
    inboxId: t.inboxId,
    subject: t.subject,
    messageCount: t.messageCount,
    lastMessageAt: t.lastMessageAt.toISOString(),
    createdAt: t.createdAt.toISOString(),
  };
}

/** Most recent activity first; the keyset is (lastMessageAt, id). */
export async function listThreads(
  db: DbOrTx,
  principal: Principal,
  input: { limit: number; cursor?: string; inboxId?: string; q?: string },
) {
  const after = decodeCursor(input.cursor);
  const where: (SQL | undefined)[] = [eq(threads.orgId, principal.orgId)];
  if (input.inboxId) where.push(eq(threads.inboxId, input.inboxId));
  // `q`: a substring of the subject (trigram index `threads_subject_trgm_idx`).
  if (input.q) where.push(sql`lower(${threads.subject}) like ${containsPattern(input.q)}`);
  where.push(keysetBefore(threads.lastMessageAt, threads.id, after));
  const rows = await db
    .select()
    .from(threads)
    .where(and(...where))
    .orderBy(desc(threads.lastMessageAt), desc(threads.id))
    .limit(input.limit + 1);
  // The keyset position of a thread is its last activity.
  const page = toPage(
    rows.map((r) => ({ ...r, createdAt: r.lastMessageAt, threadCreatedAt: r.createdAt })),
    input.limit,
  );
  return {
    threads: page.items.map((r) => toThread({ ...r, createdAt: r.threadCreatedAt })),
    pagination: page.pagination,
  };
}

export async function getThread(db: DbOrTx, principal: Principal, threadId: string) {
  const [t] = await db
    .select()
    .from(threads)
    .where(and(eq(threads.orgId, principal.orgId), eq(threads.id, threadId)));
  if (!t) throw notFound("thread", "threadId");
  const rows = await db
    .select()
    .from(messages)
    .where(eq(messages.threadId, t.id))
    .orderBy(asc(messages.createdAt), asc(messages.id));
  const files = await attachmentsOf(
    db,
    rows.map((m) => m.id),
  );
  return { thread: { ...toThread(t), messages: rows.map((m) => toMessage(m, files.get(m.id) ?? [], true)) } };
}

/** What the threads list shows beside a thread: who takes part, and its latest message. */
export interface ThreadSummary {
  participants: string[];
  last: { direction: "inbound" | "outbound"; from: string; preview: string } | null;
}

/**
 * Who takes part in each of a page of threads (console lists) — the sender and recipients of the
 * thread's first and latest messages, deduplicated — and the latest message's direction, sender and
 * preview. Two index lookups per thread (lateral joins on `messages_thread_idx`), so the cost
 * follows the page size, never the thread's length.
 */
export async function threadSummaries(
  db: DbOrTx,
  principal: Principal,
  threadIds: string[],
): Promise<Map<string, ThreadSummary>> {
  const out = new Map<string, ThreadSummary>();
  if (threadIds.length === 0) return out;
  const end = (name: "first_message" | "last_message") =>
    db
      .select({
        fromAddress: messages.fromAddress,
        to: messages.to,
        direction: messages.direction,
        textBody: messages.textBody,
        htmlBody: messages.htmlBody,
      })
      .from(messages)
      .where(eq(messages.threadId, threads.id))
      .orderBy(name === "first_message" ? asc(messages.createdAt) : desc(messages.createdAt))
      .limit(1)
      .as(name);
  const first = end("first_message");
  const last = end("last_message");
  const rows = await db
    .select({
      id: threads.id,
      firstFrom: first.fromAddress,
      firstTo: first.to,
      lastFrom: last.fromAddress,
      lastTo: last.to,
      lastDirection: last.direction,
      lastText: last.textBody,
      lastHtml: last.htmlBody,
    })
    .from(threads)
    .leftJoinLateral(first, sql`true`)
    .leftJoinLateral(last, sql`true`)
    .where(and(eq(threads.orgId, principal.orgId), inArray(threads.id, threadIds)));
  for (const r of rows) {
    const all = [r.firstFrom, ...(r.firstTo ?? []), r.lastFrom, ...(r.lastTo ?? [])].filter((a): a is string =>
      Boolean(a),
    );
    const last =
      r.lastDirection && r.lastFrom
        ? {
            direction: r.lastDirection,
            from: r.lastFrom,
            preview: textPreview({ textBody: r.lastText, htmlBody: r.lastHtml }).slice(0, 140),
          }
        : null;
    out.set(r.id, { participants: [...new Set(all)], last });
  }
  return out;
}
