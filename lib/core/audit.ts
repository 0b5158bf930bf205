import { AsyncLocalStorage } from "node:async_hooks";
import type { DbOrTx } from "@/db";
import { type AuditRow, appendChainedAudit } from "@/lib/compliance/chain";

/**
 * The audit trail of control-plane changes. A service writes the row with `recordAudit(tx, …)` in
 * the transaction that makes the change, so change and row commit together. `invoke` runs every
 * operation inside an audit scope and, for a mutating operation whose policy is `required`, checks
 * that a row was written (or that the service said there was nothing to record, `noAuditNeeded`).
 */
export interface AuditActor {
  actor: string;
  ip: string | null;
}

export interface AuditEntry {
  orgId: string;
  action: string;
  resourceType?: string | null;
  resourceId?: string | null;
  metadata?: Record<string, unknown> | null;
}

export const SYSTEM_ACTOR = (name: string): AuditActor => ({ actor: `system:${name}`, ip: null });

interface AuditScope {
  recorded: number;
  /** Why nothing was recorded although the operation succeeded (an idempotent no-op). */
  unchanged: string | null;
}

const scopes = new AsyncLocalStorage<AuditScope>();

/** Appends an audit row. Call it with the transaction that makes the change it records. */
export async function recordAudit(tx: DbOrTx, who: AuditActor, entry: AuditEntry): Promise<AuditRow> {
  // Chained when written (lib/compliance/chain.ts): the organization's chain head is locked until
  // the transaction ends, so keep the work after an audit write short.
  const row = await appendChainedAudit(tx, {
    orgId: entry.orgId,
    action: entry.action,
    resourceType: entry.resourceType ?? null,
    resourceId: entry.resourceId ?? null,
    metadata: entry.metadata ?? null,
    actor: who.actor,
    ip: who.ip,
  });
  const scope = scopes.getStore();
  if (scope) scope.recorded++;
  return row;
}

/**
 * A mutating operation that succeeded without changing anything (revoking a revoked key, setting
 * the role a member already has) says so, instead of writing an audit row for nothing.
 */
export function noAuditNeeded(reason: string): void {
  const scope = scopes.getStore();
  if (scope) scope.unchanged = reason;
}

/** Runs `work` in a fresh audit scope and reports what it recorded. */
export async function withAuditScope<T>(
  work: () => Promise<T>,
): Promise<{ result: T; recorded: number; unchanged: string | null }> {
  const scope: AuditScope = { recorded: 0, unchanged: null };
  const result = await scopes.run(scope, work);
  return { result, recorded: scope.recorded, unchanged: scope.unchanged };
}
