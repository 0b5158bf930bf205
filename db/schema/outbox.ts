import { sql } from "drizzle-orm";
import { customType, index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { organizations } from "./organizations";

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
});

/**
 * The transactional outbox: work that must leave the process only after the change that caused it
 * committed (a message's handoff to its transport, and later fan-outs). A row is written in the
 * same transaction as the change; the relay (lib/outbox/relay.ts) claims it under a lease,
 * performs it and marks it `done` (or `failed` with a reason).
 */
export const outbox = pgTable(
  "outbox",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    /** What to do: a key of the relay's handler table (`message.deliver`, …). */
    kind: text().notNull(),
    /** The row the work is about (a message id for `message.deliver`). */
    subjectId: uuid(),
    payload: jsonb().$type<Record<string, unknown>>().notNull(),
    /** Bytes the work hands on unchanged (the signed MIME of an email). */
    body: bytea(),
    status: text({ enum: ["pending", "done", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer().notNull().default(0),
    /** Who holds the row and until when; an expired lease may be taken over. */
    leaseToken: text(),
    leaseUntil: tstz(),
    lastError: text(),
    createdAt: createdAt(),
    doneAt: tstz(),
  },
  (t) => [
    index("outbox_pending_idx").on(t.leaseUntil, t.createdAt).where(sql`${t.status} = 'pending'`),
    index("outbox_subject_idx").on(t.subjectId),
  ],
);
