import { and, asc, desc, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { attachments, messages, outboundEvents, threads } from "@/db/schema";
import { type ChannelId, publicChannelMetadata } from "@/lib/channels/definitions";
import { notFound } from "@/lib/core/errors";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import type { Principal } from "@/lib/auth/principal";
import { storage } from "@/lib/providers/storage";
import { toOutboundMessage } from "./send";
import type { DeliveryStatus } from "./delivery-status";
import type { MessageRow } from "./store";

type AttachmentRow = typeof attachments.$inferSelect;

export function toAttachment(a: AttachmentRow) {
  return {
    id: a.id,
    filename: a.filename,
    contentType: a.contentType,
    contentId: a.contentId,
    sizeBytes: a.sizeBytes,
    createdAt: a.createdAt.toISOString(),
    messageId: a.messageId,
    disposition: a.disposition,
  };
}

const textPreview = (row: Pick<MessageRow, "textBody" | "htmlBody">) =>
  (row.textBody ?? row.htmlBody?.replace(/<[^>]+>/g, " ") ?? "").replace(/\s+/g, " ").trim().slice(0, 200);

/** The public Message; bodies and attachments only when `full`. */
export function toMessage(row: MessageRow, files: AttachmentRow[] | null, full: boolean) {
  return {
    object: "message" as const,
    id: row.id,
    inboxId: row.inboxId,
    threadId: row.threadId,
    direction: row.direction,
    status: row.status,
    deliveryStatus: row.deliveryStatus,
    from: { address: row.fromAddress, name: row.fromName },
    to: row.to,
    cc: row.cc,
    bcc: row.bcc,
    subject: row.subject,
    textPreview: textPreview(row),
    hasHtml: row.htmlBody !== null,
    hasAttachments: (files?.length ?? 0) > 0,
    receivedAt: row.receivedAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    channel: row.channel,
    channelMetadata: publicChannelMetadata(row.channel, row.channelMetadata),
    messageId: row.messageIdHeader,
    inReplyTo: row.inReplyTo,
    references: row.references,
    scheduledAt: row.scheduledAt?.toISOString() ?? null,
    contactId: row.contactId,
    ...(full ? { textBody: row.textBody, htmlBody: row.htmlBody, attachments: (files ?? []).map(toAttachment) } : {}),
  };
}

async function attachmentsOf(db: DbOrTx, ids: string[]): Promise<Map<string, AttachmentRow[]>> {
  const out = new Map<string, AttachmentRow[]>();
  if (ids.length === 0) return out;
  const rows = await db.select().from(attachments).where(inArray(attachments.messageId, ids)).orderBy(asc(attachments.createdAt));
  for (const r of rows) out.set(r.messageId, [...(out.get(r.messageId) ?? []), r]);
  return out;
}

export interface ListMessagesInput {
  limit: number;
  cursor?: string;
  inboxId?: string;
  threadId?: string;
  direction?: "inbound" | "outbound";
  channel?: ChannelId;
  deliveryStatus?: DeliveryStatus;
  /** Messages from or to any of these (lowercase) addresses: a contact's history (lib/contacts). */
  addresses?: string[];
  q?: string;
}

/** A LIKE pattern matching `q` anywhere, case-insensitively (its own `%`, `_` and `\` taken literally). */
const containsPattern = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * `q` on messages: a substring of the subject, the sender's address or name, or a recipient, through
 * the immutable `svc_message_search_text` the trigram index `messages_search_trgm_idx` is built on
 * (migration 0016_search); same call, same index.
 */
const messageContains = (q: string) =>
  sql`svc_message_search_text(${messages.subject}, ${messages.fromAddress}, ${messages.fromName}, ${messages.to}) like ${containsPattern(q)}`;

/** Newest first, keyset-paginated. */
export async function listMessages(db: DbOrTx, principal: Principal, input: ListMessagesInput) {
  const after = decodeCursor(input.cursor);
  const where: (SQL | undefined)[] = [eq(messages.orgId, principal.orgId)];
  if (input.inboxId) where.push(eq(messages.inboxId, input.inboxId));
  if (input.threadId) where.push(eq(messages.threadId, input.threadId));
  if (input.direction) where.push(eq(messages.direction, input.direction));
  if (input.channel) where.push(eq(messages.channel, input.channel));
  if (input.deliveryStatus) where.push(eq(messages.deliveryStatus, input.deliveryStatus));
  if (input.addresses?.length) {
    where.push(
      or(
        inArray(sql`lower(${messages.fromAddress})`, input.addresses),
        sql`exists (select 1 from unnest(${messages.to} || ${messages.cc} || ${messages.bcc}) a where lower(a) in ${input.addresses})`,
      ),
    );
  }
  if (input.q) where.push(messageContains(input.q));
  where.push(keysetBefore(messages.createdAt, messages.id, after));
  const rows = await db
    .select()
    .from(messages)
    .where(and(...where))
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(input.limit + 1);
  const page = toPage(rows, input.limit);
  const files = await attachmentsOf(db, page.items.map((m) => m.id));
  return { messages: page.items.map((m) => toMessage(m, files.get(m.id) ?? [], false)), pagination: page.pagination };
}

async function findMessage(db: DbOrTx, principal: Principal, messageId: string, param = "messageId"): Promise<MessageRow> {
  const [row] = await db
    .select()
    .from(messages)
    .where(and(eq(messages.orgId, principal.orgId), eq(messages.id, messageId)));
  if (!row) throw notFound("message", param);
  return row;
}

export async function getMessage(db: DbOrTx, principal: Principal, messageId: string) {
  const row = await findMessage(db, principal, messageId);
  const files = await attachmentsOf(db, [row.id]);
  return { message: toMessage(row, files.get(row.id) ?? [], true) };
}

/** Deletes up to 1000 messages; each id succeeds or fails on its own. */
/**
 * `POST /v1/messages/batch-delete`: the organization's messages among `messageIds` are deleted,
 * with one audit row naming them, in one transaction; every other id is a per-id failure.
 */
export async function batchDeleteMessages(db: DbOrTx, principal: Principal, messageIds: string[]) {
  const unique = [...new Set(messageIds.map((id) => id.toLowerCase()))];
  const found = await db
    .select({ id: messages.id, threadId: messages.threadId })
    .from(messages)
    .where(and(eq(messages.orgId, principal.orgId), inArray(messages.id, unique)));
  const foundIds = new Set(found.map((f) => f.id));
  const files = found.length ? await db.select().from(attachments).where(inArray(attachments.messageId, [...foundIds])) : [];
  const deleted = unique.filter((id) => foundIds.has(id));
  if (found.length === 0) noAuditNeeded("no message of the organization among the ids");
  else {
    await db.transaction(async (tx) => {
      await tx.delete(messages).where(inArray(messages.id, [...foundIds]));
      await recordAudit(tx, principal, { orgId: principal.orgId, action: "message.batch_deleted", resourceType: "message", metadata: { messageIds: deleted, count: deleted.length } });
      const threadIds = [...new Set(found.map((f) => f.threadId).filter((t): t is string => Boolean(t)))];
      for (const threadId of threadIds) {
        await tx
          .update(threads)
          .set({ messageCount: sql`(select count(*) from messages m where m.thread_id = ${threadId})` })
          .where(eq(threads.id, threadId));
      }
    });
    for (const f of files) await storage().delete(f.storageKey);
  }
  return {
    object: "batch_delete_result" as const,
    deleted,
    failed: unique.filter((id) => !foundIds.has(id)).map((id) => ({ id, code: "resource_not_found", message: "No such message." })),
  };
}

export async function listMessageEvents(db: DbOrTx, principal: Principal, messageId: string) {
  const row = await findMessage(db, principal, messageId);
  const rows = await db.select().from(outboundEvents).where(eq(outboundEvents.messageId, row.id)).orderBy(asc(outboundEvents.occurredAt), asc(outboundEvents.id));
  return {
    events: rows.map((e) => ({
      eventId: e.id,
      type: e.type,
      messageId: row.id,
      providerMessageId: e.providerMessageId,
      recipient: e.recipient,
      occurredAt: e.occurredAt.toISOString(),
      subject: row.subject,
      from: row.fromAddress,
      to: row.to,
      status: row.status,
      ...(e.details as Record<string, string>),
    })),
  };
}

export async function getOutboundEmail(db: DbOrTx, principal: Principal, emailId: string) {
  const row = await findMessage(db, principal, emailId, "emailId");
  if (row.direction !== "outbound") throw notFound("outbound email", "emailId");
  return { message: toOutboundMessage(row) };
}

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
export async function listThreads(db: DbOrTx, principal: Principal, input: { limit: number; cursor?: string; inboxId?: string; q?: string }) {
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
  return { threads: page.items.map((r) => toThread({ ...r, createdAt: r.threadCreatedAt })), pagination: page.pagination };
}

export async function getThread(db: DbOrTx, principal: Principal, threadId: string) {
  const [t] = await db
    .select()
    .from(threads)
    .where(and(eq(threads.orgId, principal.orgId), eq(threads.id, threadId)));
  if (!t) throw notFound("thread", "threadId");
  const rows = await db.select().from(messages).where(eq(messages.threadId, t.id)).orderBy(asc(messages.createdAt), asc(messages.id));
  const files = await attachmentsOf(db, rows.map((m) => m.id));
  return { thread: { ...toThread(t), messages: rows.map((m) => toMessage(m, files.get(m.id) ?? [], true)) } };
}

export async function getAttachment(db: DbOrTx, principal: Principal, attachmentId: string) {
  const [a] = await db
    .select()
    .from(attachments)
    .where(and(eq(attachments.orgId, principal.orgId), eq(attachments.id, attachmentId)));
  if (!a) throw notFound("attachment", "attachmentId");
  return toAttachment(a);
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
export async function threadSummaries(db: DbOrTx, principal: Principal, threadIds: string[]): Promise<Map<string, ThreadSummary>> {
  const out = new Map<string, ThreadSummary>();
  if (threadIds.length === 0) return out;
  const end = (name: "first_message" | "last_message") =>
    db
      .select({ fromAddress: messages.fromAddress, to: messages.to, direction: messages.direction, textBody: messages.textBody, htmlBody: messages.htmlBody })
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
    const all = [r.firstFrom, ...(r.firstTo ?? []), r.lastFrom, ...(r.lastTo ?? [])].filter((a): a is string => Boolean(a));
    const last =
      r.lastDirection && r.lastFrom
        ? { direction: r.lastDirection, from: r.lastFrom, preview: textPreview({ textBody: r.lastText, htmlBody: r.lastHtml }).slice(0, 140) }
        : null;
    out.set(r.id, { participants: [...new Set(all)], last });
  }
  return out;
}
