import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { attachments, messages, threads } from "@/db/schema";
import { mayUseInbox, type Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/audit/service";
import { ApiError, notFound } from "@/lib/core/errors";
import { getMessage } from "@/lib/messages/read";
import { appendMessageEvent, extractionData, type MessageRow } from "@/lib/messages/store";
import { storage } from "@/lib/providers/storage";
import {
  MATCH_ROUNDS,
  matcherCallsOut,
  matchWaits,
  settleWaitsFor,
  UnmatchedWaits,
  type WaitMatches,
} from "@/lib/waits/service";

/**
 * Releasing or discarding a quarantined message (a schema inbox's inbound message that failed
 * validation under `quarantine`). Both take the message's row lock and re-check that it is still
 * quarantined, so two concurrent decisions settle it once (the second gets 409 `conflict`).
 *
 * - **Release**: the message is delivered as `passthrough` would have delivered it — its
 *   `extractionStatus` becomes `passthrough`, its `structured` and `extractionErrors` stay — and
 *   `message.received` is appended (with `released: true`), so webhooks and agents see it then.
 *   Verification waits of the inbox that were registered before the message arrived (or within the
 *   registration look-back after it) resolve from it; a wait registered later does not pick up an
 *   old message, the same rule as the look-back.
 * - **Discard**: the message, its attachments and their bytes are deleted; no ledger event (the
 *   event catalogue has none for it, and `message.quarantined` already told subscribers it was held).
 * Each writes an audit row (`message.quarantine_released`, `message.quarantine_discarded`).
 */

async function lockQuarantined(tx: DbOrTx, principal: Principal, messageId: string): Promise<MessageRow> {
  const [row] = await tx
    .select()
    .from(messages)
    .where(and(eq(messages.orgId, principal.orgId), eq(messages.id, messageId)))
    .for("update");
  if (!row || !mayUseInbox(principal, row.inboxId)) throw notFound("message", "messageId");
  if (row.direction !== "inbound" || row.extractionStatus !== "quarantined") {
    throw new ApiError("conflict", "The message is not quarantined.", "messageId");
  }
  return row;
}

export async function releaseMessage(db: DbOrTx, principal: Principal, messageId: string) {
  // With an LLM matcher the waits' matches are computed outside the transaction: the first round
  // finds the candidates (none matched yet), they are matched, and the release runs again.
  let matches: WaitMatches | undefined = matcherCallsOut() ? new Map() : undefined;
  for (let round = 1; ; round++) {
    try {
      await release(db, principal, messageId, matches, round >= MATCH_ROUNDS);
      break;
    } catch (err) {
      if (!(err instanceof UnmatchedWaits) || !matches) throw err;
      matches = new Map([...matches, ...(await matchWaits(db, err.forMessage, { waits: err.waits }))]);
    }
  }
  return getMessage(db, principal, messageId);
}

async function release(
  db: DbOrTx,
  principal: Principal,
  messageId: string,
  matches: WaitMatches | undefined,
  fallback: boolean,
) {
  await db.transaction(async (tx) => {
    const held = await lockQuarantined(tx, principal, messageId);
    const [row] = await tx
      .update(messages)
      .set({ extractionStatus: "passthrough" })
      .where(eq(messages.id, held.id))
      .returning();
    if (!row) throw new Error("message vanished");
    const attachmentCount = await tx.$count(attachments, eq(attachments.messageId, row.id));
    await appendMessageEvent(tx, row, "message.received", attachmentCount, { ...extractionData(row), released: true });
    await settleWaitsFor(tx, row, { registeredBy: row.receivedAt, matches, fallback });
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "message.quarantine_released",
      resourceType: "message",
      resourceId: row.id,
      metadata: { inboxId: row.inboxId },
    });
  });
}

export async function discardMessage(db: DbOrTx, principal: Principal, messageId: string) {
  const keys = await db.transaction(async (tx) => {
    const row = await lockQuarantined(tx, principal, messageId);
    const files = await tx
      .select({ storageKey: attachments.storageKey })
      .from(attachments)
      .where(eq(attachments.messageId, row.id));
    await tx.delete(messages).where(eq(messages.id, row.id));
    if (row.threadId) {
      await tx
        .update(threads)
        .set({ messageCount: sql`(select count(*) from messages m where m.thread_id = ${row.threadId})` })
        .where(eq(threads.id, row.threadId));
    }
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "message.quarantine_discarded",
      resourceType: "message",
      resourceId: row.id,
      metadata: { inboxId: row.inboxId },
    });
    return files.map((f) => f.storageKey);
  });
  // The bytes go after the commit (a rollback keeps them); a crash in between leaves orphans the
  // storage sweep collects.
  for (const key of keys) await storage().delete(key);
  return { object: "message" as const, id: messageId, discarded: true as const };
}
