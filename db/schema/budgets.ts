import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { organizations } from "./organizations";

/** The limits of a budget as stored (spec: BudgetLimits); null means "no such limit". */
export interface StoredBudgetLimits {
  maxSendsPerDay: number | null;
  maxNewRecipientsPerHour: number | null;
  hardStopOnComplaint: boolean | null;
  maxSpendPerDayCents: number | null;
}

/**
 * Budgets (spec: Budget): ceilings on sending and spending for the whole organization (`account`),
 * one API key (`key`) or one agent (`agent`). One budget per scope and subject: `scopeKey` is the
 * subject (`""` for the account), so `PUT /v1/budgets` upserts on (org, scope, scopeKey). The send
 * path locks the rows of the budgets a send falls under (`lib/budgets/enforce.ts`).
 */
export const budgets = pgTable(
  "budgets",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    scope: text({ enum: ["account", "key", "agent"] }).notNull(),
    /** The API key id or agent id; `""` for the account budget. */
    scopeKey: text().notNull(),
    enabled: boolean().notNull().default(true),
    limits: jsonb().$type<StoredBudgetLimits>().notNull(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [uniqueIndex("budgets_org_scope_key").on(t.orgId, t.scope, t.scopeKey)],
);

/**
 * One row per accepted send (whether or not a budget exists yet, so a new budget starts from the
 * real usage): who sent it and how many recipients it has. Written in the transaction that accepts
 * the send, so a send that rolls back takes its usage with it; a canceled scheduled send deletes it.
 */
export const sendUsage = pgTable(
  "send_usage",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    /** The message the usage is for (no foreign key: deleting or erasing a message keeps its usage). */
    messageId: uuid().notNull(),
    apiKeyId: text(),
    agentId: text(),
    recipients: integer().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("send_usage_org_created_idx").on(t.orgId, t.createdAt),
    index("send_usage_org_key_created_idx").on(t.orgId, t.apiKeyId, t.createdAt),
    index("send_usage_org_agent_created_idx").on(t.orgId, t.agentId, t.createdAt),
    index("send_usage_message_idx").on(t.messageId),
  ],
);

/**
 * Holds on the account's daily spend (`maxSpendPerDayCents`) for paid sends (letters, calls):
 * `held` while the paid work is pending, `captured` when it was charged, `released` when it was not.
 * Held and captured amounts of the last 24 hours count against the cap.
 */
export const spendHolds = pgTable(
  "spend_holds",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    amountCents: integer().notNull(),
    /** What the hold is for, e.g. `letter:<id>`. */
    reference: text().notNull(),
    status: text({ enum: ["held", "captured", "released"] })
      .notNull()
      .default("held"),
    createdAt: createdAt(),
    settledAt: tstz(),
  },
  (t) => [index("spend_holds_org_created_idx").on(t.orgId, t.createdAt)],
);
