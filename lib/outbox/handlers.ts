import type { Db } from "@/db";
import { EXTRACT_KIND, performExtraction } from "@/lib/messages/extraction";
import { deliverQueuedMessage, deliverQueuedMessages } from "@/lib/messages/handoff";
import { LETTER_SUBMIT_KIND, submitLetterEntry } from "@/lib/letters/letters";
import { answerCallEntry, CALL_ANSWER_KIND, CALL_START_KIND, startCallEntry } from "@/lib/phone/calls";
import { processSlackEventEntry, SLACK_EVENT_KIND } from "@/lib/slack/events";
import type { OutboxRow } from "./store";

/**
 * What each kind of outbox entry does. A handler finishes its entry (`finishOutbox`) in the same
 * transaction as the change that records the outcome; if it throws, the relay retries it later.
 */
export type OutboxHandler = (db: Db, row: OutboxRow, leaseToken: string) => Promise<unknown>;

export const OUTBOX_HANDLERS: Record<string, OutboxHandler> = {
  "message.deliver": deliverQueuedMessage,
  [SLACK_EVENT_KIND]: processSlackEventEntry,
  [CALL_START_KIND]: startCallEntry,
  [LETTER_SUBMIT_KIND]: submitLetterEntry,
  [CALL_ANSWER_KIND]: answerCallEntry,
  [EXTRACT_KIND]: performExtraction,
};

/**
 * Kinds whose entries the relay's drain performs as a batch (claimed together under one lease
 * token): the handler ends every entry as its single handler would.
 */
export type OutboxBatchHandler = (db: Db, rows: OutboxRow[], leaseToken: string) => Promise<void>;

export const OUTBOX_BATCH_HANDLERS: Record<string, OutboxBatchHandler> = {
  "message.deliver": deliverQueuedMessages,
};
