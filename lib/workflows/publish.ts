import type { Db, DbOrTx } from "@/db";
import { inngestHosted } from "@/lib/env";
import { ingestEventsInTransaction, type IncomingEvent } from "./executor/store";

/**
 * Publishes workflow events from a service. Embedded: straight into the executor's store, inside
 * the service's transaction (the change and its workflow commit together). Inngest: through the
 * SDK client once the transaction has committed (`afterCommit` is called by the caller).
 */
export async function publishWorkflowEvents(tx: DbOrTx, events: IncomingEvent[]): Promise<() => Promise<void>> {
  if (!inngestHosted()) {
    await ingestEventsInTransaction(tx, events);
    return async () => {};
  }
  return async () => {
    const { inngest } = await import("@/inngest/client");
    await inngest.send(events.map((e) => ({ name: e.name, data: e.data ?? {}, ...(e.id ? { id: e.id } : {}) })));
  };
}

/** Publishes workflow events that belong to no other change (replays, redrives). */
export async function publishWorkflowEventsNow(db: Db, events: IncomingEvent[]): Promise<void> {
  const after = await db.transaction((tx) => publishWorkflowEvents(tx, events));
  await after();
}
