import { and, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { messages, outbox } from "@/db/schema";
import { ApiError } from "@/lib/core/errors";
import { performOutbox, takeOverOutbox } from "@/lib/outbox/relay";
import { deliverQueuedMessage } from "../handoff";
import type { MessageRow } from "../store";
import type { StoredSend } from "./store";

const SETTLE_WAIT_MS = 15_000;

/**
 * The message once its handoff finished: re-read; while it is still `queued` (its handoff runs
 * elsewhere, or its process died), take the outbox entry over when its lease expired, else wait.
 */
export async function settledMessage(db: Db, messageId: string): Promise<MessageRow> {
  const deadline = Date.now() + SETTLE_WAIT_MS;
  for (;;) {
    const [row] = await db.select().from(messages).where(eq(messages.id, messageId));
    if (!row) throw new Error(`message ${messageId} vanished`);
    if (row.status !== "queued") return row;
    const [entry] = await db
      .select({ id: outbox.id })
      .from(outbox)
      .where(and(eq(outbox.subjectId, messageId), eq(outbox.status, "pending")));
    if (entry && (await takeOverOutbox(db, entry.id))) continue;
    if (Date.now() > deadline) {
      throw new ApiError(
        "idempotency_key_in_use",
        "This send is still being handed to its transport; retry later.",
        "Idempotency-Key",
      ).withHeaders({ "Retry-After": "1" });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Stage 8, after the commit: the handoff through the channel (`performOutbox` with the lease the
 * store stage wrote; the handler gets the committed row, so nothing is read again) and the message
 * as it ended. A send with nothing to hand over was final in the store stage already.
 */
export async function deliverSend(db: Db, stored: StoredSend): Promise<MessageRow> {
  if (!stored.handoff) return stored.row;
  const ended = await performOutbox(db, stored.handoff.entry, stored.handoff.leaseToken, (d, entry, token) =>
    deliverQueuedMessage(d, entry, token, stored.row),
  );
  // Null or undefined: the lease was lost, or the handler threw (the relay retries); wait for it.
  return (ended as MessageRow | null | undefined) ?? settledMessage(db, stored.row.id);
}
