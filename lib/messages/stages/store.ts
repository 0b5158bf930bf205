import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { messages } from "@/db/schema";
import { refuseOnTrip, reserveSend } from "@/lib/budgets/enforce";
import { enqueueOutbox, newLeaseToken, type OutboxRow } from "@/lib/outbox/store";
import { DELIVER_KIND, type DeliverPayload, unavailableBounces } from "../handoff";
import { applyOutcomesInTx } from "../outcomes";
import { attachToThread, type MessageRow, storeMessage } from "../store";
import type { ApprovedSend, SignedSend } from "./draft";

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
  // A budget limit reached in the transaction rolls it back; the trip is recorded after (429).
  return refuseOnTrip(db, () => db.transaction((tx) => storeSendInTx(tx, s, opts)));
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
  const channelMetadata = s.channel.outboundMetadata({ receiptId, ...mark });
  const unavailable = [...s.internal.entries()]
    .filter(([, t]) => t.status !== "active")
    .map(([address, t]) => ({ address, status: t.status }));
  const leaseToken = handoff && opts.lease !== false ? newLeaseToken() : null;
  const now = new Date();
  let row: MessageRow;
  if (opts.existing) {
    const [updated] = await tx
      .update(messages)
      .set({ status, channelMetadata, error: s.error, sentAt: status === "sent" ? now : null })
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
      row = await applyOutcomesInTx(tx, row, unavailableBounces(unavailable));
    return { row, handoff: null, unavailable };
  }
  const payload: DeliverPayload = {
    messageId: row.id,
    messageIdHeader: s.messageIdHeader,
    envelope: { from: s.inbox.address, to: s.external },
    unavailable,
    attachmentCount: s.files.length,
  };
  const entry = await enqueueOutbox(
    tx,
    { orgId: s.principal.orgId, kind: DELIVER_KIND, subjectId: row.id, payload: { ...payload }, body: s.wire },
    leaseToken,
  );
  return { row, handoff: leaseToken ? { entry, leaseToken } : null, unavailable };
}
