import { randomBytes } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { type Db, type DbOrTx, rowsOf } from "@/db";
import { uuidv7 } from "@/db/ids";
import { compiled } from "@/db/compiled";
import { jsonRows, rowOf } from "@/db/rows";
import { messages, outbox, sendUsage, threads } from "@/db/schema";
import { refuseOnTrip, reserveSend, sendUsageRow } from "@/lib/budgets/enforce";
import { enqueueOutbox, newLeaseToken, type OutboxEntry, type OutboxRow, outboxValues } from "@/lib/outbox/store";
import { DELIVER_KIND, type DeliverPayload, unavailableBounces } from "../handoff";
import { applyOutcomesInTx } from "../outcomes";
import { attachToThread, type MessageRow, storeMessage } from "../store";
import type { ApprovedSend, SignedSend } from "./draft";
import { outboundDraft } from "./sign";

export interface StoredSend {
  row: MessageRow;
  /** The handoff's outbox entry, leased to this process, when something leaves it. */
  handoff: { entry: OutboxRow; leaseToken: string } | null;
  /** Internal recipients whose inbox does not receive (bounced once the send is `sent`). */
  unavailable: DeliverPayload["unavailable"];
}

const newReceiptId = () => `rcpt_${randomBytes(12).toString("base64url")}`;

/** The outbound row's columns from the draft. */
export function outboundRow(s: ApprovedSend, messageIdHeader: string, idempotencyKey: string | null) {
  return {
    orgId: s.principal.orgId,
    inboxId: s.inbox.id,
    direction: "outbound" as const,
    channel: s.channel.id,
    fromAddress: s.inbox.address,
    fromName: s.inbox.displayName,
    to: s.to,
    cc: s.cc,
    bcc: s.bcc,
    replyTo: s.replyTo,
    subject: s.subject,
    textBody: s.text,
    htmlBody: s.html,
    messageIdHeader,
    inReplyTo: s.inReplyTo,
    references: s.references,
    headers: s.headers,
    tags: s.tags,
    idempotencyKey,
    agentId: s.agent?.id ?? null,
    contactId: s.contactId,
  };
}

/**
 * Stage 7: one transaction commits the outbound message (`queued` while its handoff is pending,
 * `sent` when nothing leaves the process, `failed` when it could not be signed), every internal
 * recipient's copy with `message.received`, `message.sent` when already sent, and the outbox entry
 * of the handoff (leased to this process). `existing` is a scheduled message going out now; null
 * when it is no longer `scheduled` (canceled, or fired by someone else).
 */
export async function storeSend(db: Db, s: SignedSend, opts: StoreOptions): Promise<StoredSend | null> {
  if (isPlainQueuedSend(s, opts)) return storePlainSend(db, s, opts);
  // A budget limit reached in the transaction rolls it back; the trip is recorded after (429).
  return refuseOnTrip(db, () => db.transaction((tx) => storeSendInTx(tx, s, opts)));
}

/**
 * The common send: a new message to external recipients only, nothing attached, in a new thread
 * (it names no earlier message), under no budget (nothing to lock and re-check), handed off by
 * this process. Its rows are four inserts with no read between them: `storePlainSend` writes them.
 */
function isPlainQueuedSend(s: SignedSend, opts: StoreOptions): boolean {
  return !opts.existing && opts.lease !== false && !opts.broadcastId && isPlainSend(s);
}

/**
 * `storeSendInTx` for a plain send (`isPlainQueuedSend`) as one statement: the thread, the
 * `queued` message, the send's usage row and its leased outbox entry are inserts in
 * data-modifying CTEs, so they commit together without a transaction around them (one round trip
 * instead of six: begin, four inserts, commit). The ids and timestamps are made here (as the
 * columns' defaults would), so only the message row is read back.
 */
async function storePlainSend(db: Db, s: SignedSend, opts: StoreOptions): Promise<StoredSend> {
  const leaseToken = newLeaseToken();
  const rows = [plainRows(s, opts, leaseToken, new Date())];
  const shape = plainShape(rows);
  const [raw] = rowsOf<Record<string, unknown>>(
    await storePlainStatement(db, plainParams(shape, rows), shape, shape.key),
  );
  const first = rows[0] as PlainRows;
  if (!raw) throw new Error("message insert returned nothing");
  const entry: OutboxRow = { ...first.outbox, status: "pending", attempts: 0, lastError: null, doneAt: null };
  return { row: rowOf(messages, raw), handoff: { entry, leaseToken }, unavailable: [] };
}

/** `storePlainSend`'s statement, built once per shape of its rows (db/compiled.ts). */
const storePlainStatement = compiled<ReturnType<typeof plainParams>, PlainShape>((_db, shape) => {
  const p = sql.placeholder;
  const params = { threads: p("threads"), usage: p("usage"), outbox: p("outbox") };
  return sql`with ${plainCtes(shape, params)}, m as (${shape.message.insert(p("messages"))} returning *) select * from m`;
});

/**
 * Many plain sends (`isPlainSend`: a broadcast chunk's members) stored in one statement in the
 * caller's transaction: their threads, `queued` messages, usage rows and outbox entries (left to
 * the relay: no lease) as multi-row inserts. Returns how many were stored.
 */
export async function storePlainSendsInTx(
  tx: DbOrTx,
  sends: { send: SignedSend; opts: StoreOptions }[],
): Promise<number> {
  if (sends.length === 0) return 0;
  const now = new Date();
  const rows = sends.map(({ send, opts }) => plainRows(send, opts, null, now));
  const shape = plainShape(rows);
  const params = plainParams(shape, rows);
  await tx.execute(sql`with ${plainCtes(shape, params)} ${shape.message.insert(params.messages)}`);
  return rows.length;
}

/**
 * Whether a send's rows are only inserts with no read between them (`plainRows`): a new message to
 * external recipients only, nothing attached, in a new thread, under no budget to lock and re-check.
 */
export function isPlainSend(s: SignedSend): boolean {
  return (
    s.wire !== null &&
    !s.error &&
    s.internal.size === 0 &&
    s.files.length === 0 &&
    !s.budget.budgeted &&
    !s.inReplyTo &&
    s.references.length === 0
  );
}

/** A plain send's rows: its new thread, its `queued` message, its usage row and its outbox entry (leased with `leaseToken`). */
function plainRows(s: SignedSend, opts: StoreOptions, leaseToken: string | null, now: Date) {
  const receiptId = newReceiptId();
  const mark = { provenance: s.provenance, provenanceVerified: s.provenanceVerified };
  const channelMetadata = s.channel.outboundMetadata({ receiptId, ...mark, options: outboundDraft(s).options });
  const threadId = uuidv7();
  const sizeBytes = Buffer.byteLength(s.text ?? "") + Buffer.byteLength(s.html ?? "");
  return {
    thread: {
      id: threadId,
      orgId: s.principal.orgId,
      inboxId: s.inbox.id,
      subject: s.subject,
      messageCount: 1,
      lastMessageAt: now,
      createdAt: now,
    },
    message: {
      ...outboundRow(s, s.messageIdHeader, opts.idempotencyKey),
      id: s.messageId,
      threadId,
      broadcastId: opts.broadcastId ?? null,
      sizeBytes,
      status: "queued" as const,
      outcome: null,
      channelMetadata,
      error: null,
      sentAt: null,
      receivedAt: now,
      createdAt: now,
    },
    usage: sendUsageRow(s.budget, s.messageId, now),
    outbox: { id: uuidv7(), createdAt: now, ...outboxValues(deliverEntry(s, s.messageId, []), leaseToken, now) },
  };
}

type PlainRows = ReturnType<typeof plainRows>;
type PlainShape = ReturnType<typeof plainShape>;

/** The shapes of plain sends' four inserts (db/rows.ts `jsonRows`), and a key naming them. */
function plainShape(rows: PlainRows[]) {
  const thread = jsonRows(
    threads,
    rows.map((r) => r.thread),
  );
  const usage = jsonRows(
    sendUsage,
    rows.map((r) => r.usage),
  );
  const handoff = jsonRows(
    outbox,
    rows.map((r) => r.outbox),
  );
  const message = jsonRows(
    messages,
    rows.map((r) => r.message),
  );
  return { thread, usage, handoff, message, key: [thread.key, usage.key, handoff.key, message.key].join(" ") };
}

/** The four inserts' rows, each table's as one JSON parameter. */
function plainParams(shape: PlainShape, rows: PlainRows[]) {
  return {
    threads: shape.thread.json(rows.map((r) => r.thread)),
    usage: shape.usage.json(rows.map((r) => r.usage)),
    outbox: shape.handoff.json(rows.map((r) => r.outbox)),
    messages: shape.message.json(rows.map((r) => r.message)),
  };
}

/** The threads, usage rows and outbox entries of plain sends as data-modifying CTEs (`t`, `u`, `o`), for a statement that inserts their messages. */
function plainCtes(shape: PlainShape, params: { threads: unknown; usage: unknown; outbox: unknown }) {
  return sql`t as (${shape.thread.insert(params.threads)}), u as (${shape.usage.insert(params.usage)}), o as (${shape.handoff.insert(params.outbox)})`;
}

/** The outbox entry that hands a stored send's wire message to its channel after the commit. */
function deliverEntry(s: SignedSend, messageId: string, unavailable: DeliverPayload["unavailable"]): OutboxEntry {
  const payload: DeliverPayload = {
    messageId,
    messageIdHeader: s.messageIdHeader,
    envelope: { from: s.inbox.address, to: s.external },
    unavailable,
    attachmentCount: s.files.length,
  };
  return { orgId: s.principal.orgId, kind: DELIVER_KIND, subjectId: messageId, payload: { ...payload }, body: s.wire };
}

export interface StoreOptions {
  idempotencyKey: string | null;
  existing?: MessageRow | null;
  /** Lease the handoff to this process (a send delivers it at once); false leaves it to the relay (broadcasts). Default true. */
  lease?: boolean;
  /** The broadcast a member's message belongs to. */
  broadcastId?: string;
}

/** `storeSend` inside the caller's transaction (a broadcast chunk stores many sends in one). */
export async function storeSendInTx(tx: DbOrTx, s: SignedSend, opts: StoreOptions): Promise<StoredSend | null> {
  const handoff = s.wire !== null;
  const status = s.error ? "failed" : handoff ? "queued" : "sent";
  const receiptId = newReceiptId();
  const mark = { provenance: s.provenance, provenanceVerified: s.provenanceVerified };
  const channelMetadata = s.channel.outboundMetadata({ receiptId, ...mark, options: outboundDraft(s).options });
  // Nothing leaves the process (every recipient an inbox of this service): delivered at once.
  const outcome = status === "sent" ? ("delivered" as const) : null;
  const unavailable = [...s.internal.entries()]
    .filter(([, t]) => t.status !== "active")
    .map(([address, t]) => ({ address, status: t.status }));
  const leaseToken = handoff && opts.lease !== false ? newLeaseToken() : null;
  const now = new Date();
  let row: MessageRow;
  if (opts.existing) {
    const [updated] = await tx
      .update(messages)
      .set({ status, outcome, channelMetadata, error: s.error, sentAt: status === "sent" ? now : null })
      .where(and(eq(messages.id, opts.existing.id), eq(messages.status, "scheduled")))
      .returning();
    if (!updated) return null;
    // A scheduled message joins its thread when it goes out; message.sent once it is sent.
    row =
      status === "failed"
        ? updated
        : await attachToThread(tx, updated, status === "sent" ? { emit: "message.sent" } : {});
  } else {
    row = await storeMessage(
      tx,
      {
        ...outboundRow(s, s.messageIdHeader, opts.idempotencyKey),
        id: s.messageId,
        broadcastId: opts.broadcastId ?? null,
        status,
        outcome,
        channelMetadata,
        error: s.error,
        sentAt: status === "sent" ? now : null,
        receivedAt: now,
      },
      s.files,
    );
  }
  if (status !== "failed") {
    for (const [address, target] of s.internal) {
      if (target.status !== "active") continue; // bounced once sent
      // The recipient's copy: the same message, inbound, in the recipient's inbox.
      await storeMessage(
        tx,
        {
          ...outboundRow(s, s.messageIdHeader, null),
          agentId: null,
          contactId: undefined, // linked in the recipient's organization, by the sender's address
          orgId: target.orgId,
          inboxId: target.id,
          direction: "inbound",
          status: "received",
          bcc: s.bcc.includes(address) ? [address] : [],
          tags: null,
          channelMetadata: s.channel.copyMetadata({ receiptId, senderInboxId: s.inbox.id, ...mark }),
          receivedAt: now,
        },
        s.files,
      );
    }
  }
  // The budgets' reservation (a scheduled send reserved when it was accepted). Late in the
  // transaction: the budget rows it locks stay locked only until the commit.
  if (!opts.existing && status !== "failed") await reserveSend(tx, s.budget, row.id, now);
  if (!s.wire) {
    // Nothing leaves the process: the send is final here, with the bounces of internal
    // recipients whose inbox does not receive.
    if (status === "sent" && unavailable.length > 0)
      row = await applyOutcomesInTx(tx, row, unavailableBounces(s.channel, unavailable));
    return { row, handoff: null, unavailable };
  }
  const entry = await enqueueOutbox(tx, deliverEntry(s, row.id, unavailable), leaseToken);
  return { row, handoff: leaseToken ? { entry, leaseToken } : null, unavailable };
}
