import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { inboxes, messages } from "./messaging";

export const VERIFICATION_WAIT_STATUSES = ["pending", "resolved", "expired"] as const;

/**
 * A verification wait (lib/waits): pending until an inbound message of its inbox from an
 * acceptable sender yields a code or link (resolved in the message's own transaction), or until
 * `expires_at` (the sweeper) or a cancel. One wait per inbox and idempotency key.
 */
export const verificationWaits = pgTable(
  "verification_waits",
  {
    id: id(),
    orgId: orgRef(),
    inboxId: uuid()
      .notNull()
      .references(() => inboxes.id, { onDelete: "cascade" }),
    agentId: uuid(),
    status: text({ enum: VERIFICATION_WAIT_STATUSES }).notNull().default("pending"),
    fromHint: text(),
    instruction: text(),
    idempotencyKey: text(),
    result: text(),
    /** `code` or `link`, when resolved. */
    resultKind: text(),
    fromAddress: text(),
    messageId: uuid().references(() => messages.id, { onDelete: "set null" }),
    expiresAt: tstz().notNull(),
    resolvedAt: tstz(),
    expiredAt: tstz(),
    createdAt: createdAt(),
  },
  (t) => [
    index("verification_waits_inbox_idx").on(t.inboxId, t.createdAt, t.id),
    index("verification_waits_pending_idx").on(t.expiresAt).where(sql`${t.status} = 'pending'`),
    uniqueIndex("verification_waits_idempotency_key")
      .on(t.inboxId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
  ],
);

export const INBOX_SCHEMA_POLICIES = ["quarantine", "passthrough"] as const;

/**
 * An inbox's extraction contract (lib/inbox-schemas): the flat field declarations, what happens to
 * a message that does not validate, and the extraction hint. One per inbox.
 */
export const inboxSchemas = pgTable("inbox_schemas", {
  inboxId: uuid()
    .primaryKey()
    .references(() => inboxes.id, { onDelete: "cascade" }),
  orgId: orgRef(),
  schema: jsonb().$type<Record<string, unknown>>().notNull(),
  onValidationError: text({ enum: INBOX_SCHEMA_POLICIES }).notNull().default("quarantine"),
  extractionHint: text(),
  createdAt: createdAt(),
  updatedAt: tstz().notNull().defaultNow(),
});
