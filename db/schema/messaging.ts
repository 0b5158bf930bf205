import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { CHANNEL_IDS } from "../../lib/channels/definitions";
import { OUTCOME_KINDS } from "../../lib/channels/outcomes";
import { DELIVERY_STATUS_SQL, DELIVERY_STATUSES } from "../../lib/messages/delivery-status";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { domains } from "./domains";
import { organizations } from "./organizations";
import { contacts } from "./contacts";

export const INBOX_MODES = ["agent", "human", "hybrid"] as const;
export const INBOX_STATUSES = ["active", "paused", "deleted"] as const;

/** A send-and-receive address on a domain. Addresses are unique across the deployment. */
export const inboxes = pgTable(
  "inboxes",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    domainId: uuid()
      .notNull()
      .references(() => domains.id),
    /** Lower-case `local@domain`. */
    address: text().notNull(),
    displayName: text(),
    mode: text({ enum: INBOX_MODES }).notNull().default("agent"),
    agent: text(),
    status: text({ enum: INBOX_STATUSES }).notNull().default("active"),
    createdAt: createdAt(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("inboxes_address_key").on(t.address),
    index("inboxes_org_created_idx").on(t.orgId, t.createdAt, t.id),
  ],
);

export const CONNECTION_STATUSES = ["active", "disconnected"] as const;

/**
 * What an inbox sends and receives over: one row per channel address bound to it (its email
 * address today; a phone number, a Telegram bot, a Slack installation as those channels come).
 * The inbox stays the unit of ownership; inbound on a connection lands in its inbox. An address is
 * unique per channel across the deployment.
 */
export const inboxConnections = pgTable(
  "inbox_connections",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    inboxId: uuid()
      .notNull()
      .references(() => inboxes.id, { onDelete: "cascade" }),
    channel: text({ enum: CHANNEL_IDS }).notNull(),
    /** The address or external id on the channel, in the channel's normal form (email: the inbox's address). */
    address: text().notNull(),
    /** The connection's credential (a bot token, an installation's token), encrypted; null when it has none. */
    secretCiphertext: text(),
    status: text({ enum: CONNECTION_STATUSES }).notNull().default("active"),
    createdAt: createdAt(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("inbox_connections_channel_address_key").on(t.channel, t.address),
    index("inbox_connections_inbox_idx").on(t.inboxId),
  ],
);

/** A conversation within one inbox, maintained automatically from Message-ID headers. */
export const threads = pgTable(
  "threads",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    inboxId: uuid()
      .notNull()
      .references(() => inboxes.id, { onDelete: "cascade" }),
    subject: text().notNull().default(""),
    messageCount: integer().notNull().default(0),
    lastMessageAt: tstz().notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [
    index("threads_inbox_activity_idx").on(t.inboxId, t.lastMessageAt, t.id),
    index("threads_org_activity_idx").on(t.orgId, t.lastMessageAt, t.id),
  ],
);

export const MESSAGE_STATUSES = ["received", "sent", "scheduled", "failed", "queued", "canceled"] as const;

export const messages = pgTable(
  "messages",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    inboxId: uuid()
      .notNull()
      .references(() => inboxes.id, { onDelete: "cascade" }),
    threadId: uuid().references(() => threads.id, { onDelete: "set null" }),
    direction: text({ enum: ["inbound", "outbound"] }).notNull(),
    status: text({ enum: MESSAGE_STATUSES }).notNull(),
    channel: text({ enum: CHANNEL_IDS }).notNull(),
    fromAddress: text().notNull(),
    fromName: text(),
    to: text().array().notNull(),
    cc: text().array().notNull(),
    bcc: text().array().notNull(),
    replyTo: text(),
    subject: text().notNull().default(""),
    textBody: text(),
    htmlBody: text(),
    /** RFC 5322 Message-ID (angle brackets), In-Reply-To and References of this message. */
    messageIdHeader: text().notNull(),
    inReplyTo: text(),
    references: text().array().notNull(),
    headers: jsonb().$type<Record<string, string>>(),
    tags: jsonb().$type<Record<string, string>>(),
    channelMetadata: jsonb().$type<Record<string, unknown>>(),
    providerMessageId: text(),
    /**
     * The neutral delivery outcome (lib/channels/outcomes.ts) folded from every outcome so far,
     * written by the send's own statements and `applyOutcomes`; null while none (and inbound).
     */
    outcome: text({ enum: OUTCOME_KINDS }),
    error: text(),
    /** The send request, kept while scheduled so it can be re-validated when it fires. */
    request: jsonb().$type<Record<string, unknown>>(),
    idempotencyKey: text(),
    /** The agent passport (agents.id) an outbound message was sent and signed as; null otherwise. */
    agentId: uuid(),
    /** The broadcast this message is a member's copy of (lib/audiences/broadcast.ts). */
    broadcastId: uuid(),
    /** Inbound: the contact whose handle is the sender's address, when one matched on receipt. */
    contactId: uuid().references(() => contacts.id, { onDelete: "set null" }),
    sizeBytes: bigint({ mode: "number" }).notNull().default(0),
    /**
     * Inbound to a schema inbox (lib/inbox-schemas): the extracted fields, the outcome and the validation errors.
     * `pending` while the extraction (or a verification wait's match) waits for the LLM outside the
     * storing transaction (lib/messages/extraction.ts): no `message.received` yet.
     */
    structured: jsonb().$type<Record<string, unknown>>(),
    extractionStatus: text({ enum: ["pending", "validated", "quarantined", "passthrough", "error", "skipped"] }),
    extractionErrors: jsonb().$type<{ field: string; message: string }[]>(),
    scheduledAt: tstz(),
    sentAt: tstz(),
    /** Derived, never written: see lib/messages/delivery-status.ts. */
    deliveryStatus: text({ enum: DELIVERY_STATUSES }).notNull().generatedAlwaysAs(sql.raw(DELIVERY_STATUS_SQL)),
    receivedAt: tstz().notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [
    index("messages_org_created_idx").on(t.orgId, t.createdAt, t.id),
    index("messages_inbox_created_idx").on(t.inboxId, t.createdAt, t.id),
    index("messages_thread_idx").on(t.threadId, t.createdAt),
    index("messages_inbox_msgid_idx").on(t.inboxId, t.messageIdHeader),
    index("messages_provider_idx").on(t.providerMessageId),
    index("messages_scheduled_idx").on(t.status, t.scheduledAt),
    index("messages_org_idempotency_idx")
      .on(t.orgId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null and ${t.direction} = 'outbound'`),
    index("messages_org_delivery_status_idx").on(t.orgId, t.deliveryStatus, t.createdAt, t.id),
    // Agent reputation: an agent's sends of the last 24 hours.
    index("messages_agent_created_idx").on(t.agentId, t.createdAt).where(sql`${t.agentId} is not null`),
    index("messages_broadcast_idx").on(t.broadcastId, t.status).where(sql`${t.broadcastId} is not null`),
  ],
);

export const attachments = pgTable(
  "attachments",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    messageId: uuid()
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    filename: text(),
    contentType: text(),
    contentId: text(),
    disposition: text({ enum: ["attachment", "inline"] }),
    sizeBytes: bigint({ mode: "number" }).notNull(),
    /** Key of the bytes in the storage provider. */
    storageKey: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("attachments_message_idx").on(t.messageId)],
);

/** Provider delivery outcomes of outbound messages (`Delivery`, `Bounce`, `Complaint`, …). */
export const outboundEvents = pgTable(
  "outbound_events",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    messageId: uuid()
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    type: text().notNull(),
    recipient: text(),
    providerMessageId: text(),
    occurredAt: tstz().notNull(),
    details: jsonb().$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("outbound_events_message_idx").on(t.messageId, t.occurredAt)],
);

/** Recipients who complained: sends to them fail unless `ignoreComplaints`. */
export const suppressions = pgTable(
  "suppressions",
  {
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    address: text().notNull(),
    reason: text({ enum: ["complaint", "sms_stop"] }).notNull(),
    sourceMessageId: uuid(),
    providerMessageId: text(),
    feedbackType: text(),
    userAgent: text(),
    lastEventAt: tstz().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: "suppressions_pkey", columns: [t.orgId, t.address] })],
);
