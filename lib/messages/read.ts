import { and, asc, desc, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { attachments, messages, outboundEvents } from "@/db/schema";
import { type ChannelId, publicChannelMetadata } from "@/lib/channels/definitions";
import { notFound } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import type { Principal } from "@/lib/auth/principal";
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

export const textPreview = (row: Pick<MessageRow, "textBody" | "htmlBody">) =>
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
    sentAt: row.sentAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    channel: row.channel,
    channelMetadata: publicChannelMetadata(row.channel, row.channelMetadata),
    messageId: row.messageIdHeader,
    inReplyTo: row.inReplyTo,
    references: row.references,
    scheduledAt: row.scheduledAt?.toISOString() ?? null,
    contactId: row.contactId,
    structured: row.structured ?? null,
    extractionStatus: row.extractionStatus ?? null,
    extractionErrors: row.extractionErrors ?? null,
    ...(full ? { textBody: row.textBody, htmlBody: row.htmlBody, attachments: (files ?? []).map(toAttachment) } : {}),
  };
}

export async function attachmentsOf(db: DbOrTx, ids: string[]): Promise<Map<string, AttachmentRow[]>> {
  const out = new Map<string, AttachmentRow[]>();
  if (ids.length === 0) return out;
  const rows = await db
    .select()
    .from(attachments)
    .where(inArray(attachments.messageId, ids))
    .orderBy(asc(attachments.createdAt));
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
  extractionStatus?: "pending" | "validated" | "quarantined" | "passthrough" | "error";
  /** Messages from or to any of these (lowercase) addresses: a contact's history (lib/contacts). */
  addresses?: string[];
  q?: string;
}

/** A LIKE pattern matching `q` anywhere, case-insensitively (its own `%`, `_` and `\` taken literally). */
export const containsPattern = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

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
  if (input.extractionStatus) where.push(eq(messages.extractionStatus, input.extractionStatus));
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
  const files = await attachmentsOf(
    db,
    page.items.map((m) => m.id),
  );
  return { messages: page.items.map((m) => toMessage(m, files.get(m.id) ?? [], false)), pagination: page.pagination };
}

async function findMessage(
  db: DbOrTx,
  principal: Principal,
  messageId: string,
  param = "messageId",
): Promise<MessageRow> {
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

export async function listMessageEvents(db: DbOrTx, principal: Principal, messageId: string) {
  const row = await findMessage(db, principal, messageId);
  const rows = await db
    .select()
    .from(outboundEvents)
    .where(eq(outboundEvents.messageId, row.id))
    .orderBy(asc(outboundEvents.occurredAt), asc(outboundEvents.id));
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

export async function getAttachment(db: DbOrTx, principal: Principal, attachmentId: string) {
  const [a] = await db
    .select()
    .from(attachments)
    .where(and(eq(attachments.orgId, principal.orgId), eq(attachments.id, attachmentId)));
  if (!a) throw notFound("attachment", "attachmentId");
  return toAttachment(a);
}
