import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { contacts } from "./contacts";
import { fanouts } from "./fanout";
import { inboxes } from "./messaging";
import { organizations } from "./organizations";

/** Audiences (spec part 8): reusable recipient lists of an organization. */
export const audiences = pgTable(
  "audiences",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    description: text(),
    status: text({ enum: ["active"] })
      .notNull()
      .default("active"),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [index("audiences_org_created_idx").on(t.orgId, t.createdAt, t.id)],
);

/**
 * A member: one address per audience (stored lowercase, unique), added by address or as a contact
 * (then `contactId` is set and the address is the contact's primary email handle). `status` turns
 * `unsubscribed` by one-click unsubscribe; broadcasts reach `active` members only. The broadcast
 * fan-out pages members by (audienceId, email) — the unique index.
 */
export const audienceMembers = pgTable(
  "audience_members",
  {
    id: id(),
    orgId: orgRef(),
    audienceId: uuid()
      .notNull()
      .references(() => audiences.id, { onDelete: "cascade" }),
    email: text().notNull(),
    name: text(),
    contactId: uuid().references(() => contacts.id, { onDelete: "set null" }),
    metadata: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    status: text({ enum: ["active", "unsubscribed"] })
      .notNull()
      .default("active"),
    source: text().notNull().default("api"),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [
    uniqueIndex("audience_members_audience_email_key").on(t.audienceId, t.email),
    index("audience_members_contact_idx").on(t.contactId).where(sql`${t.contactId} is not null`),
  ],
);

/**
 * A broadcast: one message per active member, made by the fan-out (lib/audiences/broadcast.ts).
 * The body is rendered once when it is queued (`content`); the members are those of the audience
 * created up to `createdAt` (the snapshot). Progress counts come from its messages
 * (`messages.broadcast_id`) and `suppressed` (members skipped: suppressed, complained, unsubscribed).
 */
export const broadcasts = pgTable(
  "broadcasts",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    audienceId: uuid()
      .notNull()
      .references(() => audiences.id, { onDelete: "cascade" }),
    inboxId: uuid()
      .notNull()
      .references(() => inboxes.id, { onDelete: "cascade" }),
    fanoutId: uuid().references(() => fanouts.id, { onDelete: "set null" }),
    /** Subject, text, html, replyTo, headers, tags, ignoreComplaints, template pin: what every member's message says. */
    content: jsonb().$type<Record<string, unknown>>().notNull(),
    /** The per-member idempotency key is `{idempotencyBase}:{address}`. */
    idempotencyBase: text().notNull(),
    /** Members in the snapshot when it was queued. */
    total: integer().notNull(),
    suppressed: integer().notNull().default(0),
    createdAt: createdAt(),
    completedAt: tstz(),
  },
  (t) => [index("broadcasts_org_created_idx").on(t.orgId, t.createdAt, t.id)],
);
