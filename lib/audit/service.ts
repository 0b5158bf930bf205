import { and, desc, eq, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { auditLogs } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";

/** Writing audit rows is the operation core's (`lib/core/audit.ts`); re-exported for older imports. */
export { type AuditActor, type AuditEntry, recordAudit, SYSTEM_ACTOR } from "@/lib/core/audit";

export interface ListAuditLogsInput {
  limit: number;
  cursor?: string;
  action?: string;
  resourceType?: string;
  resourceId?: string;
}

/** Newest first, keyset-paginated on (createdAt, id). */
export async function listAuditLogs(db: DbOrTx, principal: Principal, input: ListAuditLogsInput) {
  const after = decodeCursor(input.cursor);
  const where: (SQL | undefined)[] = [eq(auditLogs.orgId, principal.orgId)];
  if (input.action) where.push(eq(auditLogs.action, input.action));
  if (input.resourceType) where.push(eq(auditLogs.resourceType, input.resourceType));
  if (input.resourceId) where.push(eq(auditLogs.resourceId, input.resourceId));
  where.push(keysetBefore(auditLogs.createdAt, auditLogs.id, after));
  const rows = await db
    .select()
    .from(auditLogs)
    .where(and(...where))
    .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id))
    .limit(input.limit + 1);
  const page = toPage(rows, input.limit);
  return { logs: page.items.map(toAuditLogEvent), pagination: page.pagination };
}

function toAuditLogEvent(row: typeof auditLogs.$inferSelect) {
  return {
    id: row.id,
    action: row.action,
    createdAt: row.createdAt.toISOString(),
    resourceType: row.resourceType,
    resourceId: row.resourceId,
    actor: row.actor,
    ip: row.ip,
    metadata: row.metadata,
  };
}

/** The distinct actions recorded for the organization (for the console's filter suggestions). */
export async function listAuditActions(db: DbOrTx, principal: Principal, limit = 200): Promise<string[]> {
  const rows = await db
    .selectDistinct({ action: auditLogs.action })
    .from(auditLogs)
    .where(eq(auditLogs.orgId, principal.orgId))
    .orderBy(auditLogs.action)
    .limit(limit);
  return rows.map((r) => r.action);
}
