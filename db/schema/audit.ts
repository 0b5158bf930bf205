import { bigint, index, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { organizations } from "./organizations";

/**
 * Append-only record of control-plane actions, written in the same transaction as the change.
 * Rows are hash-chained per organization (`lib/compliance/chain.ts`): `chainSeq` 1-based and
 * contiguous (a gap only where an erasure removed a row), `prevHash` the predecessor's `rowHash`
 * (`""` for the first), `rowHash` hex SHA-256 of `prevHash` followed by the JCS form of the row.
 * Rows written before chaining existed have null chain columns until their organization's first
 * chained write links them in.
 */
export const auditLogs = pgTable(
  "audit_logs",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    action: text().notNull(),
    resourceType: text(),
    resourceId: text(),
    /** `api_key:<id>`, `user:<id>`, `agent:agt_…` or `system:<name>`. */
    actor: text().notNull(),
    ip: text(),
    metadata: jsonb().$type<Record<string, unknown>>(),
    /** The agent passport (`agt_…`) the action was taken under, when there is one. */
    agentId: text(),
    chainSeq: bigint({ mode: "number" }),
    prevHash: text(),
    rowHash: text(),
    createdAt: createdAt(),
  },
  (t) => [
    index("audit_logs_org_created_idx").on(t.orgId, t.createdAt, t.id),
    index("audit_logs_org_action_idx").on(t.orgId, t.action, t.createdAt),
    // One row per chain position: a fork (two rows claiming the same place) cannot be stored.
    uniqueIndex("audit_logs_org_chain_seq_key").on(t.orgId, t.chainSeq),
  ],
);

/**
 * The head of each organization's audit chain: the last position handed out and its row hash.
 * Every chained write locks this row in its own transaction (the upsert takes the lock), so
 * concurrent writers queue behind each other and the chain never forks; a rollback returns the
 * position with the row.
 */
export const auditChainHeads = pgTable("audit_chain_heads", {
  orgId: orgRef()
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  lastSeq: bigint({ mode: "number" }).notNull(),
  lastHash: text().notNull(),
  /** `createdAt` of the last chained row: later rows never get an earlier time. */
  lastCreatedAt: tstz(),
});
