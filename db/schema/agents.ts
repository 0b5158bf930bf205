import { sql } from "drizzle-orm";
import { boolean, index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { apiKeys } from "./api-keys";
import { inboxes } from "./messaging";
import { organizations } from "./organizations";

export const AGENT_STATUSES = ["active", "suspended", "revoked"] as const;
export const REPUTATION_STATES = ["healthy", "throttled", "quarantined", "review"] as const;

/**
 * Agent passports (spec: Agent passports): a stable `agt_` id (the row's UUID without dashes, see
 * lib/core/public-ids.ts) and one Ed25519 signing key (`signing_keys`, purpose `agent`). The
 * reputation columns hold the state the last evaluation left (lib/agents/reputation.ts); the
 * rates themselves are always computed from the delivery outcomes.
 */
export const agents = pgTable(
  "agents",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    display: text().notNull(),
    description: text(),
    status: text({ enum: AGENT_STATUSES }).notNull().default("active"),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    revokedAt: tstz(),
    reputationState: text({ enum: REPUTATION_STATES }).notNull().default("healthy"),
    /** Set by a clear with `overrideLocked`: the evaluation leaves the state alone until cleared again without it. */
    reputationLocked: boolean().notNull().default(false),
    reputationReason: text(),
    reputationTrippedAt: tstz(),
    reputationEvaluatedAt: tstz(),
    /** The last operator clear: outcomes before it no longer count. */
    reputationClearedAt: tstz(),
  },
  (t) => [index("agents_org_created_idx").on(t.orgId, t.createdAt, t.id)],
);

/**
 * What makes a send an agent's: an API key or an inbox bound to the passport. A key and an inbox
 * each belong to at most one agent (binding again moves them); when a send's key and inbox are
 * bound to different agents, the key's binding wins (the key is who acts).
 */
export const agentBindings = pgTable(
  "agent_bindings",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    agentId: uuid()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    apiKeyId: uuid().references(() => apiKeys.id, { onDelete: "cascade" }),
    inboxId: uuid().references(() => inboxes.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("agent_bindings_api_key_key").on(t.apiKeyId).where(sql`${t.apiKeyId} is not null`),
    uniqueIndex("agent_bindings_inbox_key").on(t.inboxId).where(sql`${t.inboxId} is not null`),
    index("agent_bindings_agent_idx").on(t.agentId),
  ],
);
