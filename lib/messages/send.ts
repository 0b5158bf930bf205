import { randomBytes } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbOrTx } from "@/db";
import { domains, type inboxes, messages, outbox, suppressions } from "@/db/schema";
import { type ChannelId, publicChannelMetadata } from "@/lib/channels/definitions";
import { performOutbox, takeOverOutbox } from "@/lib/outbox/relay";
import { enqueueOutbox, newLeaseToken } from "@/lib/outbox/store";
import { ApiError, invalidRequest, notFound, notPermitted } from "@/lib/core/errors";
import { mayUseInbox, type Principal } from "@/lib/auth/principal";
import type { SendMessageInput } from "@/lib/messages/contracts";
import { sharedDomainKey } from "@/lib/domains/dkim";
import { findInbox, inboxByAddress } from "@/lib/inboxes/service";
import { log } from "@/lib/log";
import { publishWorkflowEvents } from "@/lib/workflows/publish";
import { isReservedHeader } from "./headers";
import { angleBrackets, buildMime, type DkimSigner, newMessageId, signDkim } from "./mime";
import { DELIVER_KIND, type DeliverPayload, unavailableBounces } from "./handoff";
import { applyOutcomes } from "./outcomes";
import { attachToThread, type MessageRow, type StoredAttachment, storeMessage } from "./store";

type InboxRow = typeof inboxes.$inferSelect;

const MAX_FILE_BYTES = 8 * 1024 * 1024;
const MAX_TOTAL_BYTES = 8 * 1024 * 1024;
const MAX_SCHEDULE_MS = 30 * 86_400_000;

export const SCHEDULED_EVENT = "svc/message.scheduled";
export const CANCELED_EVENT = "svc/message.canceled";

export interface SendWarning {
  recipient: string;
  reason: "complaint";
  message: string;
  sourceMessageId: string | null;
  providerMessageId: string | null;
  complaintFeedbackType: string | null;
  complaintUserAgent: string | null;
  lastEventAt: string | null;
}

export interface SendResponse {
  id: string;
  status: "sent" | "scheduled" | "failed" | "queued";
  warnings: SendWarning[];
  providerMessageId: string | null;
  error: string | null;
  channel: ChannelId;
  channelMetadata: Record<string, unknown> | null;
  scheduledAt: string | null;
}

const asList = (r: string | string[] | undefined): string[] => (r === undefined ? [] : Array.isArray(r) ? r : [r]);
const emailSchema = z.email();

function recipientsOf(field: "to" | "cc" | "bcc", value: string | string[] | undefined): string[] {
  return asList(value).map((raw, i) => {
    const param = Array.isArray(value) ? `${field}[${i}]` : field;
    if (raw.startsWith("@") || raw.startsWith("contact:")) throw invalidRequest(`Contact references are not supported yet; give an email address.`, param);
    const address = raw.trim().toLowerCase();
    if (!emailSchema.safeParse(address).success) throw invalidRequest(`"${raw}" is not a valid email address.`, param);
    return address;
  });
}

/** A validated, fully resolved send: everything needed to deliver it or to preview it. */
interface PreparedSend {
  inbox: InboxRow;
  channel: ChannelId;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text: string | null;
  html: string | null;
  replyTo: string | null;
  inReplyTo: string | null;
  references: string[];
  headers: Record<string, string>;
  tags: Record<string, string>;
  files: StoredAttachment[];
  sendAt: Date | null;
  warnings: SendWarning[];
  /** Recipients that are inboxes of this service (any organization), by address. */
  internal: Map<string, InboxRow>;
}

function refuseUnsupported(input: SendMessageInput): void {
  for (const field of ["react", "template", "contactId"] as const) {
    if (input[field] !== undefined) throw invalidRequest(`\`${field}\` is not supported yet.`, field);
  }
  if (input.buttons !== undefined) throw invalidRequest("`buttons` are only for Telegram inboxes.", "buttons");
}

function decodeAttachments(input: SendMessageInput): StoredAttachment[] {
  let total = 0;
  return (input.attachments ?? []).map((a, i) => {
    const param = `attachments[${i}]`;
    if (a.objectId !== undefined) throw invalidRequest("`objectId` attachments are not supported yet.", `${param}.objectId`);
    if (a.contentBase64 === undefined) throw invalidRequest("Give `contentBase64`.", `${param}.contentBase64`);
    if (!a.filename) throw invalidRequest("Inline attachments need a `filename`.", `${param}.filename`);
    if (a.delivery === "link") throw invalidRequest("`delivery: link` needs a storage object; not supported yet.", `${param}.delivery`);
    const clean = a.contentBase64.replace(/\s+/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) throw invalidRequest("`contentBase64` is not valid base64.", `${param}.contentBase64`);
    const content = Buffer.from(clean, "base64");
    if (content.length > MAX_FILE_BYTES) throw new ApiError("payload_too_large", `Attachment ${a.filename} is over 8 MiB.`, param);
    total += content.length;
    if (total > MAX_TOTAL_BYTES) throw new ApiError("payload_too_large", "Inline attachments are over 8 MiB in total.", "attachments");
    return { filename: a.filename, contentType: a.contentType ?? "application/octet-stream", content, disposition: "attachment" };
  });
}

function customHeaders(input: SendMessageInput): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (isReservedHeader(name)) throw invalidRequest(`The ${name} header is set by the service.`, `headers.${name}`);
    if (/[\r\n]/.test(value)) throw invalidRequest("Header values cannot contain line breaks.", `headers.${name}`);
    out[name] = value;
  }
  return out;
}

async function complaintWarnings(db: DbOrTx, orgId: string, recipients: string[]): Promise<SendWarning[]> {
  if (recipients.length === 0) return [];
  const rows = await db
    .select()
    .from(suppressions)
    .where(and(eq(suppressions.orgId, orgId), inArray(suppressions.address, recipients)));
  return rows.map((r) => ({
    recipient: r.address,
    reason: "complaint" as const,
    message: `${r.address} complained about earlier mail from this organization.`,
    sourceMessageId: r.sourceMessageId,
    providerMessageId: r.providerMessageId,
    complaintFeedbackType: r.feedbackType,
    complaintUserAgent: r.userAgent,
    lastEventAt: r.lastEventAt.toISOString(),
  }));
}

/** Validates a send request against the spec's rules and resolves everything it refers to. */
async function prepare(db: DbOrTx, principal: Principal, input: SendMessageInput, now: Date): Promise<PreparedSend> {
  refuseUnsupported(input);
  const inbox = await findInbox(db, principal, input.inboxId);
  if (!mayUseInbox(principal, inbox.id)) throw notPermitted("This API key may not send as this inbox.", "inboxId");
  if (inbox.status !== "active") throw notPermitted(`The inbox is ${inbox.status}; it neither sends nor receives.`, "inboxId");

  const to = recipientsOf("to", input.to);
  const cc = recipientsOf("cc", input.cc);
  const bcc = recipientsOf("bcc", input.bcc);
  const all = [...new Set([...to, ...cc, ...bcc])];
  if (all.length > 50) throw invalidRequest("At most 50 recipients in to, cc and bcc together.", "to");

  let inReplyTo = input.inReplyTo ? angleBrackets(input.inReplyTo) : null;
  let references = (input.references ?? []).map(angleBrackets);
  if (input.replyToMessageId) {
    const [parent] = await db
      .select()
      .from(messages)
      .where(and(eq(messages.orgId, principal.orgId), eq(messages.id, input.replyToMessageId)));
    if (!parent) throw notFound("message", "replyToMessageId");
    if (inReplyTo && inReplyTo !== parent.messageIdHeader) {
      throw invalidRequest("`inReplyTo` disagrees with the message named by `replyToMessageId`.", "inReplyTo");
    }
    inReplyTo = parent.messageIdHeader;
    if (references.length === 0) references = [...parent.references, parent.messageIdHeader].slice(-32);
  }
  if (references.length === 0 && inReplyTo) references = [inReplyTo];

  const internal = new Map<string, InboxRow>();
  for (const address of all) {
    const target = await inboxByAddress(db, address);
    if (target) internal.set(address, target);
  }
  const allInternal = internal.size === all.length;
  const channel = input.channel ?? (allInternal ? "a2a" : "email");
  if (channel === "a2a") {
    const external = all.filter((a) => !internal.has(a));
    if (external.length > 0) throw invalidRequest(`a2a delivers only to inboxes of this service; ${external[0]} is not one.`, "channel");
    const unavailable = [...internal.values()].find((i) => i.status !== "active");
    if (unavailable) throw invalidRequest(`The inbox ${unavailable.address} is ${unavailable.status} and does not receive.`, "to");
    if (input.sendAt) throw invalidRequest("a2a messages are delivered at once; they cannot be scheduled.", "sendAt");
  }

  let sendAt: Date | null = null;
  if (input.sendAt) {
    sendAt = new Date(input.sendAt);
    if (sendAt.getTime() <= now.getTime()) throw invalidRequest("`sendAt` must be in the future.", "sendAt");
    if (sendAt.getTime() - now.getTime() > MAX_SCHEDULE_MS) throw invalidRequest("`sendAt` can be at most 30 days ahead.", "sendAt");
  }

  const warnings = await complaintWarnings(db, principal.orgId, all);
  if (warnings.length > 0 && !input.ignoreComplaints) {
    throw invalidRequest(
      `Recipients who complained: ${warnings.map((w) => w.recipient).join(", ")}. Send with ignoreComplaints to override.`,
      "to",
    );
  }

  return {
    inbox,
    channel,
    to,
    cc,
    bcc,
    subject: input.subject ?? "",
    text: input.text ?? null,
    html: input.html ?? null,
    replyTo: input.replyTo ?? null,
    inReplyTo,
    references,
    headers: customHeaders(input),
    tags: input.tags ?? {},
    files: decodeAttachments(input),
    sendAt,
    warnings,
    internal,
  };
}

const preview = (text: string | null, html: string | null) =>
  (text ?? html?.replace(/<[^>]+>/g, " ") ?? "").replace(/\s+/g, " ").trim().slice(0, 200);

function toPreview(p: PreparedSend) {
  return {
    object: "message_preview" as const,
    status: "preview" as const,
    channel: p.channel,
    inboxId: p.inbox.id,
    from: { address: p.inbox.address, name: p.inbox.displayName },
    to: p.to,
    cc: p.cc,
    bcc: p.bcc,
    subject: p.subject,
    textPreview: preview(p.text, p.html),
    hasHtml: p.html !== null,
    inReplyTo: p.inReplyTo,
    references: p.references,
    attachments: p.files.map((f) => ({ filename: f.filename ?? "", contentType: f.contentType, sizeBytes: f.content.length })),
    sizeBytes: Buffer.byteLength(p.text ?? "") + Buffer.byteLength(p.html ?? "") + p.files.reduce((n, f) => n + f.content.length, 0),
    scheduledAt: p.sendAt?.toISOString() ?? null,
    warnings: p.warnings,
  };
}

async function signerFor(db: DbOrTx, inbox: InboxRow): Promise<DkimSigner> {
  const [domain] = await db.select().from(domains).where(eq(domains.id, inbox.domainId));
  if (!domain) throw new Error(`inbox ${inbox.id} has no domain`);
  if (domain.isShared) {
    const key = await sharedDomainKey(db);
    return { domain: domain.name, selector: key.selector, privateKey: key.privateKey };
  }
  if (!domain.dkimSelector || !domain.dkimPrivateKey) throw new Error(`domain ${domain.id} has no DKIM key`);
  return { domain: domain.name, selector: domain.dkimSelector, privateKey: domain.dkimPrivateKey };
}

const newReceiptId = () => `rcpt_${randomBytes(12).toString("base64url")}`;

function outboundRow(principal: Principal, p: PreparedSend, messageIdHeader: string, idempotencyKey: string | null) {
  return {
    orgId: principal.orgId,
    inboxId: p.inbox.id,
    direction: "outbound" as const,
    channel: p.channel,
    fromAddress: p.inbox.address,
    fromName: p.inbox.displayName,
    to: p.to,
    cc: p.cc,
    bcc: p.bcc,
    replyTo: p.replyTo,
    subject: p.subject,
    textBody: p.text,
    htmlBody: p.html,
    messageIdHeader,
    inReplyTo: p.inReplyTo,
    references: p.references,
    headers: p.headers,
    tags: p.tags,
    idempotencyKey,
  };
}

/**
 * Delivers a prepared send now. Composes and signs the MIME for external recipients first; then
 * one transaction commits the outbound message (`queued` while it waits for its handoff, `sent`
 * when nothing leaves the process), every internal recipient's copy, their ledger events and the
 * outbox entry of the handoff. Only after that commit is the mail handed to the transport
 * (`performOutbox`, still inside the request), so nothing leaves without a committed record and a
 * crash in between is finished by the outbox relay on restart.
 */
async function deliver(db: Db, principal: Principal, p: PreparedSend, existing: MessageRow | null, idempotencyKey: string | null): Promise<SendResponse> {
  const messageIdHeader = existing?.messageIdHeader ?? newMessageId(p.inbox.address.split("@")[1] ?? "localhost");
  const recipients = [...new Set([...p.to, ...p.cc, ...p.bcc])];
  const external = recipients.filter((r) => !p.internal.has(r));
  let raw: Buffer | null = null;
  let error: string | null = null;
  if (p.channel === "email" && external.length > 0) {
    try {
      const mime = await buildMime({
        from: { address: p.inbox.address, name: p.inbox.displayName },
        to: p.to,
        cc: p.cc,
        subject: p.subject,
        text: p.text,
        html: p.html,
        replyTo: p.replyTo,
        messageId: messageIdHeader,
        inReplyTo: p.inReplyTo,
        references: p.references,
        headers: p.headers,
        attachments: p.files.map((f) => ({ filename: f.filename ?? "attachment", contentType: f.contentType, content: f.content })),
      });
      raw = await signDkim(mime, await signerFor(db, p.inbox));
    } catch (err) {
      log.warn("outbound message could not be composed", { inboxId: p.inbox.id, err: err instanceof Error ? err.message : String(err) });
      error = "compose_failed";
    }
  }
  const receiptId = p.channel === "a2a" ? newReceiptId() : null;
  const channelMetadata: Record<string, unknown> =
    p.channel === "a2a" ? { receiptId, provenance: null, provenanceVerified: false } : { provider: null, providerMessageId: null, lastEventType: null, lastEventAt: null, bouncedAt: null, complainedAt: null };
  const handoff = raw !== null;
  const status = error ? "failed" : handoff ? "queued" : "sent";
  const unavailable = [...p.internal.entries()].filter(([, t]) => t.status !== "active").map(([address, t]) => ({ address, status: t.status }));
  const leaseToken = handoff ? newLeaseToken() : null;

  const { row: stored, entry } = await db.transaction(async (tx) => {
    const now = new Date();
    let row: MessageRow;
    if (existing) {
      const [updated] = await tx
        .update(messages)
        .set({ status, channelMetadata, error, sentAt: status === "sent" ? now : null })
        .where(eq(messages.id, existing.id))
        .returning();
      if (!updated) throw new Error("scheduled message vanished");
      // A scheduled message joins its thread when it goes out; message.sent when it is sent.
      row = status === "failed" ? updated : await attachToThread(tx, updated, status === "sent" ? { emit: "message.sent" } : {});
    } else {
      row = await storeMessage(tx, { ...outboundRow(principal, p, messageIdHeader, idempotencyKey), status, channelMetadata, error, sentAt: status === "sent" ? now : null, receivedAt: now }, p.files);
    }
    if (status !== "failed") {
      for (const [address, target] of p.internal) {
        if (target.status !== "active") continue; // email to a paused inbox: bounced once sent
        // The recipient's copy: the same message, inbound, in the recipient's inbox.
        await storeMessage(
          tx,
          {
            ...outboundRow(principal, p, messageIdHeader, null),
            orgId: target.orgId,
            inboxId: target.id,
            direction: "inbound",
            status: "received",
            bcc: p.bcc.includes(address) ? [address] : [],
            tags: null,
            channelMetadata: p.channel === "a2a" ? { receiptId, provenance: null, provenanceVerified: false, senderInboxId: p.inbox.id } : { internal: true, senderInboxId: p.inbox.id },
            receivedAt: now,
          },
          p.files,
        );
      }
    }
    const payload: DeliverPayload = { messageId: row.id, messageIdHeader, envelope: { from: p.inbox.address, to: external }, unavailable, attachmentCount: p.files.length };
    const outboxEntry = raw && leaseToken ? await enqueueOutbox(tx, { orgId: principal.orgId, kind: DELIVER_KIND, subjectId: row.id, payload: { ...payload }, body: raw }, leaseToken) : null;
    return { row, entry: outboxEntry };
  });

  if (entry && leaseToken) {
    await performOutbox(db, entry, leaseToken);
    return sendResponseOf(await settledMessage(db, stored.id), p.warnings);
  }
  if (status === "sent" && unavailable.length > 0) await applyOutcomes(db, stored.id, unavailableBounces(unavailable));
  return sendResponseOf(stored, p.warnings);
}

/** The answer to a send from its stored message. */
function sendResponseOf(row: MessageRow, warnings: SendWarning[]): SendResponse {
  return {
    id: row.id,
    status: row.status === "scheduled" ? "scheduled" : row.status === "sent" ? "sent" : row.status === "failed" ? "failed" : "queued",
    warnings,
    providerMessageId: row.providerMessageId,
    error: row.error,
    channel: row.channel,
    channelMetadata: row.channel === "a2a" ? publicChannelMetadata(row.channel, row.channelMetadata) : null,
    scheduledAt: row.status === "scheduled" ? (row.scheduledAt?.toISOString() ?? null) : null,
  };
}

const SETTLE_WAIT_MS = 15_000;

/**
 * The message once its handoff finished: re-read; while it is still `queued` (its handoff is
 * being performed elsewhere, or its process died), take the outbox entry over when its lease
 * expired, else wait for it.
 */
async function settledMessage(db: Db, messageId: string): Promise<MessageRow> {
  const deadline = Date.now() + SETTLE_WAIT_MS;
  for (;;) {
    const [row] = await db.select().from(messages).where(eq(messages.id, messageId));
    if (!row) throw new Error(`message ${messageId} vanished`);
    if (row.status !== "queued") return row;
    const [entry] = await db
      .select({ id: outbox.id })
      .from(outbox)
      .where(and(eq(outbox.subjectId, messageId), eq(outbox.status, "pending")));
    if (entry && (await takeOverOutbox(db, entry.id))) continue;
    if (Date.now() > deadline) {
      throw new ApiError("idempotency_key_in_use", "This send is still being handed to its transport; retry later.", "Idempotency-Key").withHeaders({ "Retry-After": "1" });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A send already stored under this Idempotency-Key (its first request's record was lost with its
 * process): its final answer, never a second send.
 */
async function earlierSend(db: Db, orgId: string, idempotencyKey: string): Promise<SendResponse | null> {
  const [row] = await db
    .select()
    .from(messages)
    .where(and(eq(messages.orgId, orgId), eq(messages.idempotencyKey, idempotencyKey), eq(messages.direction, "outbound")))
    .limit(1);
  if (!row) return null;
  return sendResponseOf(row.status === "queued" ? await settledMessage(db, row.id) : row, []);
}

/** `POST /v1/messages`: validate, then preview, schedule or deliver. */
export async function sendMessage(
  db: Db,
  principal: Principal,
  input: SendMessageInput,
  now: Date = new Date(),
  idempotencyKey: string | null = input.idempotencyKey ?? null,
): Promise<SendResponse | ReturnType<typeof toPreview>> {
  if (idempotencyKey && !input.dryRun) {
    const earlier = await earlierSend(db, principal.orgId, idempotencyKey);
    if (earlier) return earlier;
  }
  const p = await prepare(db, principal, input, now);
  if (input.dryRun) return toPreview(p);
  if (!p.sendAt) return deliver(db, principal, p, null, idempotencyKey);

  const sendAt = p.sendAt;
  const { row, afterCommit } = await db.transaction(async (tx) => {
    const messageIdHeader = newMessageId(p.inbox.address.split("@")[1] ?? "localhost");
    const stored = await storeMessage(
      tx,
      {
        ...outboundRow(principal, p, messageIdHeader, idempotencyKey),
        status: "scheduled",
        scheduledAt: sendAt,
        request: { ...input, sendAt: null },
        receivedAt: now,
      },
      p.files,
      { thread: false },
    );
    const after = await publishWorkflowEvents(tx, [{ name: SCHEDULED_EVENT, data: { messageId: stored.id, orgId: principal.orgId, sendAt: sendAt.toISOString() } }]);
    return { row: stored, afterCommit: after };
  });
  await afterCommit();
  return {
    id: row.id,
    status: "scheduled",
    warnings: p.warnings,
    providerMessageId: null,
    error: null,
    channel: p.channel,
    channelMetadata: null,
    scheduledAt: sendAt.toISOString(),
  };
}

/** A system principal acting in an organization (workflows re-running a validated request). */
function systemPrincipal(orgId: string, userId: string): Principal {
  return { orgId, userId, apiKeyId: null, scopes: new Set(), inboxIds: null, actor: "system:scheduler", ip: null, requestId: null };
}

/**
 * Fires a scheduled message (the send-scheduled-message workflow calls this when `sendAt` comes):
 * re-validates the stored request — the inbox must still send, complaints still count — and
 * delivers it, or marks it `failed` with the reason. Harmless to call twice: only a message still
 * `scheduled` is sent.
 */
export async function sendScheduledMessage(db: Db, messageId: string): Promise<{ status: string; error: string | null }> {
  const [row] = await db.select().from(messages).where(eq(messages.id, messageId));
  if (!row || row.status !== "scheduled" || !row.request) return { status: row?.status ?? "missing", error: null };
  const principal = systemPrincipal(row.orgId, "00000000-0000-0000-0000-000000000000");
  const request = row.request as SendMessageInput;
  let prepared: PreparedSend;
  try {
    prepared = await prepare(db, principal, { ...request, sendAt: null, dryRun: false }, new Date());
  } catch (err) {
    const reason = err instanceof ApiError ? err.message : "revalidation_failed";
    await db
      .update(messages)
      .set({ status: "failed", error: reason })
      .where(and(eq(messages.id, row.id), eq(messages.status, "scheduled")));
    return { status: "failed", error: reason };
  }
  const [claimed] = await db
    .update(messages)
    .set({ status: "queued" })
    .where(and(eq(messages.id, row.id), eq(messages.status, "scheduled")))
    .returning();
  if (!claimed) return { status: "canceled", error: null };
  const result = await deliver(db, principal, prepared, claimed, row.idempotencyKey);
  return { status: result.status, error: result.error };
}

/** `scheduled` → `canceled` before it fires; the workflow waiting for it is cancelled too. */
export async function cancelScheduledMessage(db: Db, principal: Principal, messageId: string) {
  const { row, afterCommit } = await db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(messages)
      .where(and(eq(messages.orgId, principal.orgId), eq(messages.id, messageId), eq(messages.direction, "outbound")));
    if (!current) throw notFound("outbound email", "emailId");
    if (current.status !== "scheduled") throw new ApiError("conflict", `The email is ${current.status}; only a scheduled email can be canceled.`, "emailId");
    const [updated] = await tx.update(messages).set({ status: "canceled" }).where(eq(messages.id, current.id)).returning();
    if (!updated) throw notFound("outbound email", "emailId");
    const after = await publishWorkflowEvents(tx, [{ name: CANCELED_EVENT, data: { messageId: current.id } }]);
    return { row: updated, afterCommit: after };
  });
  await afterCommit();
  return { message: toOutboundMessage(row) };
}

export function toOutboundMessage(row: MessageRow) {
  return {
    id: row.id,
    from: row.fromAddress,
    to: row.to,
    subject: row.subject,
    status: row.status,
    sentAt: row.sentAt?.toISOString() ?? null,
    scheduledAt: row.scheduledAt?.toISOString() ?? null,
    error: row.error,
  };
}
