import { index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { organizations, users } from "./organizations";

export const apiKeys = pgTable(
  "api_keys",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    /** The user on whose behalf the key acts (whoami's `userId`). */
    userId: uuid()
      .notNull()
      .references(() => users.id),
    name: text().notNull(),
    /** Leading characters of the secret, shown to people and used to find the row. */
    prefix: text().notNull(),
    /** Hex SHA-256 of the whole secret; the secret itself is never stored. */
    secretHash: text().notNull(),
    scopes: text().array().notNull(),
    status: text({ enum: ["active", "revoked"] })
      .notNull()
      .default("active"),
    environment: text({ enum: ["live", "test"] })
      .notNull()
      .default("live"),
    allowedIps: text().array(),
    inboxIds: uuid().array(),
    createdAt: createdAt(),
    lastUsedAt: tstz(),
    revokedAt: tstz(),
  },
  (t) => [index("api_keys_prefix_idx").on(t.prefix), index("api_keys_org_created_idx").on(t.orgId, t.createdAt, t.id)],
);
