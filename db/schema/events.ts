import { bigint, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, orgRef, tstz } from "./_columns";
import { organizations } from "./organizations";

/**
 * The event ledger: every event the product emits, appended in the same transaction as the
 * change that causes it, with a contiguous 1-based `seq` per partition (`inbox:<id>`, …).
 */
export const ledgerEvents = pgTable(
  "ledger_events",
  {
    /** Global order of appends (keyset for cursors). */
    position: bigint({ mode: "number" }).generatedAlwaysAsIdentity().primaryKey(),
    eventId: text().notNull(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    type: text().notNull(),
    partitionKey: text().notNull(),
    seq: bigint({ mode: "number" }).notNull(),
    inboxId: uuid(),
    threadId: uuid(),
    messageId: uuid(),
    outboundMessageId: uuid(),
    providerMessageId: text(),
    idempotencyKey: text(),
    data: jsonb().$type<Record<string, unknown>>().notNull(),
    occurredAt: tstz().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("ledger_events_event_id_key").on(t.eventId),
    uniqueIndex("ledger_events_partition_seq_key").on(t.orgId, t.partitionKey, t.seq),
    index("ledger_events_org_position_idx").on(t.orgId, t.position),
    index("ledger_events_org_type_idx").on(t.orgId, t.type, t.position),
  ],
);

/** The last sequence number handed out per partition (locked by each append). */
export const ledgerPartitions = pgTable(
  "ledger_partitions",
  {
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    partitionKey: text().notNull(),
    lastSeq: bigint({ mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ name: "ledger_partitions_pkey", columns: [t.orgId, t.partitionKey] })],
);
