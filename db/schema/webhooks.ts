import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { organizations } from "./organizations";

/** Endpoints that receive the organization's events as signed POST requests. */
export const webhooks = pgTable(
  "webhooks",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    url: text().notNull(),
    events: text().array().notNull(),
    label: text(),
    status: text({ enum: ["active", "paused"] })
      .notNull()
      .default("active"),
    /** `whsec_<base64>` (Standard Webhooks). The previous one signs too until it expires. */
    secret: text().notNull(),
    previousSecret: text(),
    previousSecretExpiresAt: tstz(),
    consecutiveFailures: integer().notNull().default(0),
    autoPaused: boolean().notNull().default(false),
    autoPausedAt: tstz(),
    pausedReason: text(),
    lastDeliveryAt: tstz(),
    /** Deliveries per second this endpoint accepts (null: no limit), paced across processes. */
    rateLimitPerSecond: integer(),
    /** The pacing state (GCRA theoretical arrival time), written under the dispatcher's claim lock. */
    rateTat: tstz(),
    createdAt: createdAt(),
  },
  (t) => [index("webhooks_org_idx").on(t.orgId, t.status)],
);

/** The endpoint a row belongs to (removed with it). */
const webhookRef = () =>
  uuid()
    .notNull()
    .references(() => webhooks.id, { onDelete: "cascade" });

/** What a delivery attempt sent, as the delivery log keeps it. */
export interface AttemptRequest {
  method: "POST";
  url: string;
  headers: Record<string, string>;
  body: string;
  /** True when `body` was cut at the stored limit (the receiver got all of it). */
  bodyTruncated: boolean;
}

/** One row per delivery attempt (the delivery log). */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    webhookId: webhookRef(),
    eventId: text().notNull(),
    eventType: text().notNull(),
    attempt: integer().notNull(),
    status: text({ enum: ["succeeded", "failed", "pending"] }).notNull(),
    responseStatus: integer(),
    durationMs: integer(),
    error: text(),
    responseSnippet: text(),
    /** What was sent (lib/webhooks/deliver.ts `AttemptRequest`): the headers, signature included (never
     * the secret), and the body up to REQUEST_BODY_LIMIT characters. Null: no request was made. */
    request: jsonb().$type<AttemptRequest>(),
    /** The receiver's response headers (bounded: RESPONSE_HEADER_LIMIT headers, each value cut). */
    responseHeaders: jsonb().$type<Record<string, string>>(),
    replay: boolean().notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    index("webhook_deliveries_webhook_idx").on(t.webhookId, t.createdAt, t.id),
    index("webhook_deliveries_event_idx").on(t.webhookId, t.eventId),
  ],
);

/**
 * Deliveries to make (lib/webhooks/dispatcher.ts): one row per event and endpoint, written in the
 * transaction that appends the event, deleted when the delivery succeeds or fails for good. A
 * claimed row is due again when its lease ends (`dueAt` moves past it), so a delivery a crashed
 * process was making is made again.
 */
export const webhookQueue = pgTable(
  "webhook_queue",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    webhookId: webhookRef(),
    eventId: text().notNull(),
    replay: boolean().notNull().default(false),
    /** Attempts made so far (claims). */
    attempts: integer().notNull().default(0),
    dueAt: tstz().notNull().default(sql`now()`),
    /** The `pending` delivery-log row of the attempt under way (null: none). */
    deliveryId: uuid(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("webhook_queue_event_key").on(t.webhookId, t.eventId),
    index("webhook_queue_due_idx").on(t.dueAt),
  ],
);
