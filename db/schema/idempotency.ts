import { index, integer, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, orgRef, tstz } from "./_columns";
import { organizations } from "./organizations";

/** Stored outcomes of side-effecting requests, keyed by the caller's Idempotency-Key. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    key: text().notNull(),
    apiKeyId: uuid(),
    /** SHA-256 over method, path, query and body: a different request under the same key is refused. */
    requestHash: text().notNull(),
    status: text({ enum: ["in_progress", "completed"] })
      .notNull()
      .default("in_progress"),
    responseStatus: integer(),
    responseBody: jsonb(),
    createdAt: createdAt(),
    completedAt: tstz(),
  },
  (t) => [
    primaryKey({ name: "idempotency_keys_pkey", columns: [t.orgId, t.key] }),
    index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);
