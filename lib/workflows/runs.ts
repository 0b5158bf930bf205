import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import { type DbOrTx, getDb } from "@/db";
import { type RunStatus, webhooks, wfEvents, wfRuns } from "@/db/schema";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";

/** Operator view of workflow runs (the console shows it): status, steps, errors. */
export interface ListRunsInput {
  limit: number;
  cursor?: string;
  status?: RunStatus;
  functionId?: string;
  /** Only runs whose triggering event belongs to this organization (see `runOfOrganization`). */
  orgId?: string;
}

/**
 * Runs are deployment data; a run belongs to an organization when its triggering event's data
 * names it (`orgId`) or names one of its webhooks (`webhookId`, the delivery and replay events).
 * Runs whose events carry neither (housekeeping) belong to no organization.
 */
export function runOfOrganization(orgId: string): SQL {
  const data = sql`(${wfRuns.event} -> 'data')`;
  return sql`(${data} ->> 'orgId' = ${orgId} or exists (select 1 from ${webhooks} where ${webhooks.orgId} = ${orgId} and ${webhooks.id}::text = ${data} ->> 'webhookId'))`;
}

export async function listWorkflowRuns(db: DbOrTx, input: ListRunsInput) {
  const after = decodeCursor(input.cursor);
  const where: (SQL | undefined)[] = [];
  if (input.status) where.push(eq(wfRuns.status, input.status));
  if (input.functionId) where.push(eq(wfRuns.functionId, input.functionId));
  if (input.orgId) where.push(runOfOrganization(input.orgId));
  where.push(keysetBefore(wfRuns.createdAt, wfRuns.id, after));
  const rows = await db
    .select()
    .from(wfRuns)
    .where(and(...where))
    .orderBy(desc(wfRuns.createdAt), desc(wfRuns.id))
    .limit(input.limit + 1);
  const page = toPage(rows, input.limit);
  return {
    runs: page.items.map((r) => ({
      id: r.id,
      functionId: r.functionId,
      status: r.status,
      event: { id: r.event.id, name: r.event.name },
      attempt: r.attempt,
      steps: r.history,
      waitingFor: r.wait,
      dueAt: r.dueAt.toISOString(),
      output: r.output,
      error: r.error,
      createdAt: r.createdAt.toISOString(),
      startedAt: r.startedAt?.toISOString() ?? null,
      endedAt: r.endedAt?.toISOString() ?? null,
    })),
    pagination: page.pagination,
  };
}

export async function getWorkflowRun(db: DbOrTx, runId: string) {
  const [run] = await db.select().from(wfRuns).where(eq(wfRuns.id, runId));
  return run ?? null;
}

/** Executor events older than the dedupe window (24 h) are dropped. */
export async function purgeOldWorkflowEvents(): Promise<number> {
  const db = await getDb();
  const deleted = await db
    .delete(wfEvents)
    .where(sql`${wfEvents.receivedAt} < now() - interval '24 hours'`)
    .returning({ id: wfEvents.id });
  return deleted.length;
}
