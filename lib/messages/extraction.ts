import { and, eq, or, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { attachments, messages } from "@/db/schema";
import type { ExtractSource } from "@/lib/inbox-schemas/extract";
import { runExtraction, schemaDefOf } from "@/lib/inbox-schemas/service";
import { finishOutbox, type OutboxRow } from "@/lib/outbox/store";
import { storage } from "@/lib/providers/storage";
import type { MatchResult } from "@/lib/waits/matcher";
import { MATCH_ROUNDS, matchWaits, settleWaitsFor, UnmatchedWaits, type WaitMatches } from "@/lib/waits/service";
import { appendMessageEvent, extractionData, type MessageRow } from "./store";

/**
 * Deferred extraction: what must read an inbound message through the LLM provider (a schema
 * inbox's extraction, a verification wait's match) runs after the message's transaction commits,
 * never inside it — nothing leaves the process before a change commits.
 *
 * With `LLM_BASE_URL` set, `storeMessage` stores an inbound message to a schema inbox (or to an
 * inbox with a pending wait that accepts its sender) with `extractionStatus` `pending`, no ledger
 * event, and a `message.extract` outbox entry in the same transaction. `performExtraction` (the
 * entry's handler) then runs the extraction and the waits' matcher outside any transaction, and in
 * one short transaction — the message row locked and still `pending`, so an entry performed twice
 * (a relay takeover, a retry) settles the message once — writes `structured` / `extractionStatus`,
 * appends `message.received` or `message.quarantined`, resolves the waits it satisfies and finishes
 * the entry. Without an LLM the default extractor and matcher run in the storing transaction: they
 * never leave the process.
 */

export { EXTRACT_KIND } from "./store";

/** The message's content as the extractors read it: bodies and its JSON / text attachments. */
async function sourceOf(db: Db, message: MessageRow): Promise<ExtractSource> {
  const rows = await db
    .select({ filename: attachments.filename, contentType: attachments.contentType, key: attachments.storageKey })
    .from(attachments)
    .where(
      and(
        eq(attachments.messageId, message.id),
        or(
          eq(attachments.contentType, "application/json"),
          sql`${attachments.contentType} like 'text/%'`,
          sql`${attachments.filename} ilike '%.json'`,
        ),
      ),
    );
  const files: ExtractSource["files"] = [];
  for (const r of rows) {
    const content = r.key === "pending" ? null : await storage().get(r.key);
    if (content)
      files.push({ filename: r.filename, contentType: r.contentType ?? "application/octet-stream", content });
  }
  return { text: message.textBody, html: message.htmlBody, files };
}

/** The `message.extract` outbox handler (lib/outbox/handlers.ts). */
export async function performExtraction(db: Db, entry: OutboxRow, token: string): Promise<void> {
  const messageId = typeof entry.payload.messageId === "string" ? entry.payload.messageId : (entry.subjectId ?? "");
  const [message] = await db.select().from(messages).where(eq(messages.id, messageId));
  if (!message || message.extractionStatus !== "pending") {
    // Settled already (the entry performed twice) or deleted meanwhile.
    await db.transaction((tx) => finishOutbox(tx, entry.id, token, { status: "done" }));
    return;
  }
  // Outside any transaction: what may call the LLM provider.
  const def = await schemaDefOf(db, message.inboxId);
  const extraction = def ? await runExtraction(def, await sourceOf(db, message), message.inboxId) : null;
  const held = extraction?.extractionStatus === "quarantined";
  // A deferred message settles the waits registered before it arrived or within the look-back after
  // it: a registration's look-back skipped it while it was pending.
  const registeredBy = message.receivedAt;
  let matches: WaitMatches = held
    ? new Map<string, MatchResult | null>()
    : await matchWaits(db, message, { registeredBy });
  for (let round = 1; ; round++) {
    try {
      await db.transaction(async (tx) => {
        const [locked] = await tx.select().from(messages).where(eq(messages.id, message.id)).for("update");
        if (locked?.extractionStatus === "pending") {
          const [row] = await tx
            .update(messages)
            .set({
              structured: extraction?.structured ?? null,
              extractionStatus: extraction?.extractionStatus ?? null,
              extractionErrors: extraction?.extractionErrors ?? null,
            })
            .where(eq(messages.id, message.id))
            .returning();
          if (!row) throw new Error("message vanished");
          const count = await tx.$count(attachments, eq(attachments.messageId, row.id));
          await appendMessageEvent(
            tx,
            row,
            held ? "message.quarantined" : "message.received",
            count,
            extractionData(row),
          );
          if (!held) await settleWaitsFor(tx, row, { registeredBy, matches, fallback: round >= MATCH_ROUNDS });
        }
        await finishOutbox(tx, entry.id, token, { status: "done" });
      });
      return;
    } catch (err) {
      // Waits registered while the matcher ran (they skipped the pending message): matched outside
      // the transaction too, then the transaction runs again.
      if (!(err instanceof UnmatchedWaits)) throw err;
      matches = new Map([...matches, ...(await matchWaits(db, message, { waits: err.waits }))]);
    }
  }
}
