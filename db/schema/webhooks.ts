import { boolean, index, integer, pgTable, text, uuid } from "drizzle-orm/pg-core";
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
    status: text({ enum: ["active", "paused"] }).notNull().default("active"),
    /** `whsec_<base64>` (Standard Webhooks). The previous one signs too until it expires. */
    secret: text().notNull(),
    previousSecret: text(),
    previousSecretExpiresAt: tstz(),
    consecutiveFailures: integer().notNull().default(0),
    autoPaused: boolean().notNull().default(false),
    autoPausedAt: tstz(),
    pausedReason: text(),
    lastDeliveryAt: tstz(),
    createdAt: createdAt(),
  },
  (t) => [index("webhooks_org_idx").on(t.orgId, t.status)],
);

/** One row per delivery attempt (the delivery log). */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    webhookId: uuid()
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: text().notNull(),
    eventType: text().notNull(),
    attempt: integer().notNull(),
    status: text({ enum: ["succeeded", "failed", "pending"] }).notNull(),
    responseStatus: integer(),
    durationMs: integer(),
    error: text(),
    responseSnippet: text(),
    replay: boolean().notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [index("webhook_deliveries_webhook_idx").on(t.webhookId, t.createdAt, t.id), index("webhook_deliveries_event_idx").on(t.webhookId, t.eventId)],
);
