import type { Db, DbOrTx } from "@/db";
import { inngestHosted } from "@/lib/env";
import type { PublishableEvent } from "./define";
import { ingestEventsInTransaction } from "./executor/store";

/**
 * Publishes workflow events from a service. Only events made by their definition's `create` are
 * accepted (`lib/workflows/define.ts`: the payload was parsed against the event's schema).
 * Embedded: straight into the executor's store, inside the service's transaction (the change and
 * its workflow commit together). Inngest: through the SDK client once the transaction has committed
 * (`afterCommit` is called by the caller).
 */
export async function publishWorkflowEvents(
  tx: DbOrTx,
  events: readonly PublishableEvent[],
): Promise<() => Promise<void>> {
  const plain = events.map((e) => ({ name: e.name, data: e.data, ...(e.id ? { id: e.id } : {}) }));
  if (!inngestHosted()) {
    await ingestEventsInTransaction(tx, plain);
    return async () => {};
  }
  return async () => {
    const { inngest } = await import("@/inngest/client");
    await inngest.send(plain);
  };
}

/** Publishes workflow events that belong to no other change (replays, redrives). */
export async function publishWorkflowEventsNow(db: Db, events: readonly PublishableEvent[]): Promise<void> {
  const after = await db.transaction((tx) => publishWorkflowEvents(tx, events));
  await after();
}
