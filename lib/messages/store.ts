import { and, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { attachments, messages, threads } from "@/db/schema";
import { type AppendInput, appendEvent } from "@/lib/events/ledger";
import { trackInboundAttachments } from "@/lib/buckets/scan";
import { storage } from "@/lib/providers/storage";
import { contactByHandle } from "@/lib/contacts/addressing";
import { channelDefinition } from "@/lib/channels/definitions";
import type { HandleChannel } from "@/lib/contacts/handles";
import { lockAndCheckWaits, settleWaitsFor } from "@/lib/waits/service";
import { llmConfig } from "@/lib/waits/llm";
import { extractFor, schemaDefOf } from "@/lib/inbox-schemas/service";
import { enqueueOutbox } from "@/lib/outbox/store";
import { nudgeOutbox } from "@/lib/outbox/nudge";

/** The outbox kind of a deferred extraction (its handler: lib/messages/extraction.ts). */
export const EXTRACT_KIND = "message.extract";

/** The handle kinds an inbound sender's address is looked up on: its channel's. */
const linkChannels = (channel: string) => channelDefinition(channel).handleKinds as HandleChannel[];

/**
 * Writing messages: threading, the message row, its attachments' bytes, the thread's counters and
 * the ledger event, in the caller's transaction.
 */

export type MessageRow = typeof messages.$inferSelect;

export interface StoredAttachment {
  filename: string | null;
  contentType: string;
  contentId?: string | null;
  disposition?: "attachment" | "inline";
  content: Buffer;
}

/** `Re: Fwd: Subject` → `subject`, for matching a reply's subject to its thread. */
export function normalizeSubject(subject: string): string {
  return subject
    .replace(/^(\s*(re|fw|fwd|aw|sv|antw)(\[\d+\])?\s*:\s*)+/i, "")
    .trim()
    .toLowerCase();
}

/**
 * The thread a message belongs to within its inbox: the thread of any earlier message whose
 * Message-ID it names in In-Reply-To or References; otherwise a new thread, which already counts
 * the message (`created`: the caller need not count it again).
 */
export async function resolveThread(
  tx: DbOrTx,
  input: { orgId: string; inboxId: string; inReplyTo: string | null; references: string[]; subject: string; at: Date },
): Promise<{ threadId: string; created: boolean }> {
  const ids = [...new Set([input.inReplyTo, ...input.references].filter((x): x is string => Boolean(x)))];
  if (ids.length > 0) {
    const [parent] = await tx
      .select({ threadId: messages.threadId })
      .from(messages)
      .where(
        and(
          eq(messages.inboxId, input.inboxId),
          inArray(messages.messageIdHeader, ids),
          sql`${messages.threadId} is not null`,
        ),
      )
      .limit(1);
    if (parent?.threadId) return { threadId: parent.threadId, created: false };
  }
  const [thread] = await tx
    .insert(threads)
    .values({
      orgId: input.orgId,
      inboxId: input.inboxId,
      subject: input.subject,
      messageCount: 1,
      lastMessageAt: input.at,
    })
    .returning({ id: threads.id });
  if (!thread) throw new Error("thread insert returned nothing");
  return { threadId: thread.id, created: true };
}

export type NewMessage = Omit<typeof messages.$inferInsert, "id" | "threadId" | "createdAt" | "sizeBytes"> & {
  /** Chosen by the caller when something signed names it (agent provenance); else generated. */ id?: string;
};

/**
 * Stores a message with its attachments in its thread and appends its ledger event
 * (`message.received` for inbound, `message.sent` for sent outbound; none while scheduled).
 */
export async function storeMessage(
  tx: DbOrTx,
  input: NewMessage,
  files: StoredAttachment[] = [],
  opts: { thread?: boolean; silent?: boolean } = {},
): Promise<MessageRow> {
  const at = input.receivedAt instanceof Date ? input.receivedAt : new Date();
  const thread =
    opts.thread === false
      ? null
      : await resolveThread(tx, {
          orgId: input.orgId,
          inboxId: input.inboxId,
          inReplyTo: input.inReplyTo ?? null,
          references: input.references,
          subject: input.subject ?? "",
          at,
        });
  const threadId = thread?.threadId ?? null;
  const sizeBytes =
    Buffer.byteLength(input.textBody ?? "") +
    Buffer.byteLength(input.htmlBody ?? "") +
    files.reduce((n, f) => n + f.content.length, 0);
  // An inbound sender who is one of the organization's contacts is linked on receipt, by the
  // handle kinds of the message's channel.
  const contactId =
    input.contactId !== undefined || input.direction !== "inbound"
      ? input.contactId
      : await contactByHandle(tx, input.orgId, linkChannels(input.channel), input.fromAddress);
  const live = input.direction === "inbound" && !opts.silent;
  // With an LLM provider, what would read the message through it (a schema inbox's extraction, a
  // verification wait's match) runs after the commit: the message is stored `pending`, without its
  // event, with a `message.extract` outbox entry (lib/messages/extraction.ts).
  const deferred =
    live &&
    llmConfig() !== null &&
    ((await schemaDefOf(tx, input.inboxId)) !== null ||
      (await lockAndCheckWaits(tx, input.inboxId, {
        channel: input.channel,
        channelMetadata: input.channelMetadata ?? null,
        fromAddress: input.fromAddress,
      })));
  // Otherwise a schema inbox's inbound message is extracted (the default extractor, in the process)
  // and validated before it is stored (lib/inbox-schemas).
  const extraction =
    live && !deferred
      ? await extractFor(tx, input.inboxId, { text: input.textBody ?? null, html: input.htmlBody ?? null, files })
      : null;
  const [row] = await tx
    .insert(messages)
    .values({
      ...input,
      ...(extraction ?? {}),
      ...(deferred ? { extractionStatus: "pending" as const } : {}),
      contactId,
      threadId,
      sizeBytes,
      receivedAt: at,
    })
    .returning();
  if (!row) throw new Error("message insert returned nothing");
  for (const file of files) {
    const [att] = await tx
      .insert(attachments)
      .values({
        orgId: row.orgId,
        messageId: row.id,
        filename: file.filename,
        contentType: file.contentType,
        contentId: file.contentId ?? null,
        disposition: file.disposition ?? "attachment",
        sizeBytes: file.content.length,
        storageKey: "pending",
      })
      .returning({ id: attachments.id });
    if (!att) throw new Error("attachment insert returned nothing");
    const key = `attachments/${row.orgId}/${att.id}`;
    // The bytes are written before the transaction commits; if it rolls back they belong to no
    // row and the storage sweep collects them (lib/providers/storage/sweep.ts).
    await storage().put(key, file.content, { contentType: file.contentType });
    await tx.update(attachments).set({ storageKey: key }).where(eq(attachments.id, att.id));
  }
  // Inbound attachments are scanned before they are served (lib/buckets/scan.ts).
  if (row.direction === "inbound" && files.length > 0) await trackInboundAttachments(tx, row.id);
  if (thread && !thread.created) {
    await tx
      .update(threads)
      .set({
        messageCount: sql`${threads.messageCount} + 1`,
        lastMessageAt: sql`greatest(${threads.lastMessageAt}, ${at.toISOString()}::timestamptz)`,
      })
      .where(eq(threads.id, thread.threadId));
  }
  if (deferred) {
    const entry = await enqueueOutbox(tx, {
      orgId: row.orgId,
      kind: EXTRACT_KIND,
      subjectId: row.id,
      payload: { messageId: row.id },
    });
    // Performed by this process once the caller's transaction commits (else by the relay).
    nudgeOutbox(entry.id);
  }
  const type =
    opts.silent || deferred
      ? null
      : row.direction === "inbound"
        ? row.extractionStatus === "quarantined"
          ? "message.quarantined"
          : "message.received"
        : row.status === "sent"
          ? "message.sent"
          : null;
  if (type) await appendMessageEvent(tx, row, type, files.length, extractionData(row));
  // Verification waits of the inbox that this message satisfies resolve in the same transaction.
  if (type === "message.received") await settleWaitsFor(tx, row);
  return row;
}

/** A schema inbox's extraction in a message's event data (nothing for other inboxes). */
export const extractionData = (row: MessageRow): Record<string, unknown> =>
  row.extractionStatus
    ? { extractionStatus: row.extractionStatus, structured: row.structured, extractionErrors: row.extractionErrors }
    : {};

/** Puts a message stored without a thread (a scheduled send) into its thread now. */
export async function attachToThread(
  tx: DbOrTx,
  row: MessageRow,
  opts: { emit?: "message.sent" } = {},
): Promise<MessageRow> {
  const at = new Date();
  const { threadId, created } = await resolveThread(tx, {
    orgId: row.orgId,
    inboxId: row.inboxId,
    inReplyTo: row.inReplyTo,
    references: row.references,
    subject: row.subject,
    at,
  });
  const [updated] = await tx.update(messages).set({ threadId }).where(eq(messages.id, row.id)).returning();
  if (!updated) throw new Error("message vanished");
  if (!created) {
    await tx
      .update(threads)
      .set({
        messageCount: sql`${threads.messageCount} + 1`,
        lastMessageAt: sql`greatest(${threads.lastMessageAt}, ${at.toISOString()}::timestamptz)`,
      })
      .where(eq(threads.id, threadId));
  }
  if (opts.emit) await appendMessageEvent(tx, updated, opts.emit);
  return updated;
}

export type MessageEventType =
  | "message.received"
  | "message.quarantined"
  | "message.sent"
  | "message.delivered"
  | "message.bounced"
  | "message.complained"
  | "message.delayed";

/** The ledger event for a message (`message.received`, `message.sent`, …), in its inbox's partition. */
export function messageEvent(
  row: MessageRow,
  type: MessageEventType,
  attachmentCount?: number,
  extra: Record<string, unknown> = {},
): AppendInput {
  return {
    orgId: row.orgId,
    type,
    partitionKey: `inbox:${row.inboxId}`,
    inboxId: row.inboxId,
    threadId: row.threadId,
    messageId: row.id,
    outboundMessageId: row.direction === "outbound" ? row.id : null,
    providerMessageId: row.providerMessageId,
    idempotencyKey: row.idempotencyKey,
    data: {
      messageId: row.id,
      inboxId: row.inboxId,
      threadId: row.threadId,
      channel: row.channel,
      direction: row.direction,
      from: { address: row.fromAddress, name: row.fromName },
      to: row.to,
      subject: row.subject,
      ...(attachmentCount !== undefined ? { attachmentCount } : {}),
      ...extra,
    },
  };
}

/** Appends a message's ledger event in the caller's transaction. */
export async function appendMessageEvent(
  tx: DbOrTx,
  row: MessageRow,
  type: MessageEventType,
  attachmentCount?: number,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await appendEvent(tx, messageEvent(row, type, attachmentCount, extra));
}
