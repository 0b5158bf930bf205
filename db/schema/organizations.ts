import { index, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, tstz } from "./_columns";

export const ROLES = ["owner", "admin", "member"] as const;
export type Role = (typeof ROLES)[number];

export const users = pgTable(
  "users",
  {
    id: id(),
    email: text().notNull(),
    name: text(),
    /** Set when the user proved the address (magic link, accepted invitation). */
    emailVerified: tstz(),
    image: text(),
    /** Argon2id hash for console password sign-in; null for magic-link-only users. */
    passwordHash: text(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_key").on(t.email)],
);

/** An organization is the spec's "project": the isolation tier that owns every resource. */
export const organizations = pgTable(
  "organizations",
  {
    id: id(),
    name: text().notNull(),
    slug: text().notNull(),
    vanitySlug: text(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("organizations_slug_key").on(t.slug)],
);

export const memberships = pgTable(
  "memberships",
  {
    orgId: uuid()
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text({ enum: ROLES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: "memberships_pkey", columns: [t.orgId, t.userId] }),
    index("memberships_user_idx").on(t.userId),
  ],
);
