import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef } from "./_columns";
import { organizations } from "./organizations";

/** Append-only record of control-plane actions, written in the same transaction as the change. */
export const auditLogs = pgTable(
  "audit_logs",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    action: text().notNull(),
    resourceType: text(),
    resourceId: text(),
    /** `api_key:<id>`, `user:<id>` or `system:<name>`. */
    actor: text().notNull(),
    ip: text(),
    metadata: jsonb().$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [
    index("audit_logs_org_created_idx").on(t.orgId, t.createdAt, t.id),
    index("audit_logs_org_action_idx").on(t.orgId, t.action, t.createdAt),
  ],
);
