import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef } from "./_columns";
import { organizations } from "./organizations";

/**
 * The address book (spec: Contacts): people and agents, plus exactly one `self` contact per
 * organization (`@me`, made on first use, never deleted). `alias` is stored lowercase and unique in
 * the organization, so `@Alias` and `@alias` name the same contact.
 */
export const contacts = pgTable(
  "contacts",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    kind: text({ enum: ["person", "agent", "self"] })
      .notNull()
      .default("person"),
    displayName: text().notNull(),
    alias: text(),
    info: text(),
    avatarUrl: text(),
    metadata: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [
    uniqueIndex("contacts_org_alias_key").on(t.orgId, t.alias),
    uniqueIndex("contacts_org_self_key").on(t.orgId).where(sql`${t.kind} = 'self'`),
    index("contacts_org_created_idx").on(t.orgId, t.createdAt, t.id),
  ],
);

/**
 * A way to reach a contact on one channel. `value` is normalized per channel (email and a2a
 * addresses lowercase); one value belongs to at most one contact of the organization, so an
 * inbound sender maps to one contact. At most one primary handle per contact and channel.
 */
export const contactHandles = pgTable(
  "contact_handles",
  {
    id: id(),
    orgId: orgRef(),
    contactId: uuid()
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    channel: text().notNull(),
    value: text().notNull(),
    label: text(),
    isPrimary: boolean().notNull().default(false),
    verified: boolean().notNull().default(false),
    metadata: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [
    uniqueIndex("contact_handles_org_channel_value_key").on(t.orgId, t.channel, t.value),
    uniqueIndex("contact_handles_primary_key").on(t.contactId, t.channel).where(sql`${t.isPrimary}`),
    index("contact_handles_contact_idx").on(t.contactId, t.createdAt),
  ],
);
