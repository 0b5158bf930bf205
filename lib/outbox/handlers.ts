import type { Db } from "@/db";
import { deliverQueuedMessage } from "@/lib/messages/handoff";
import type { OutboxRow } from "./store";

/**
 * What each kind of outbox entry does. A handler finishes its entry (`finishOutbox`) in the same
 * transaction as the change that records the outcome; if it throws, the relay retries it later.
 */
export type OutboxHandler = (db: Db, row: OutboxRow, leaseToken: string) => Promise<unknown>;

export const OUTBOX_HANDLERS: Record<string, OutboxHandler> = {
  "message.deliver": deliverQueuedMessage,
};
