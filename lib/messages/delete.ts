import { and, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { attachments, messages, threads } from "@/db/schema";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import type { Principal } from "@/lib/auth/principal";
import { storage } from "@/lib/providers/storage";

/**
 * `POST /v1/messages/batch-delete`: the organization's messages among `messageIds` are deleted,
 * with one audit row naming them, in one transaction; every other id is a per-id failure.
 */
export async function batchDeleteMessages(db: DbOrTx, principal: Principal, messageIds: string[]) {
  const unique = [...new Set(messageIds.map((id) => id.toLowerCase()))];
  const found = await db
    .select({ id: messages.id, threadId: messages.threadId })
    .from(messages)
    .where(and(eq(messages.orgId, principal.orgId), inArray(messages.id, unique)));
  const foundIds = new Set(found.map((f) => f.id));
  const files = found.length
    ? await db
        .select()
        .from(attachments)
        .where(inArray(attachments.messageId, [...foundIds]))
    : [];
  const deleted = unique.filter((id) => foundIds.has(id));
  if (found.length === 0) noAuditNeeded("no message of the organization among the ids");
  else {
    await db.transaction(async (tx) => {
      await tx.delete(messages).where(inArray(messages.id, [...foundIds]));
      await recordAudit(tx, principal, {
        orgId: principal.orgId,
        action: "message.batch_deleted",
        resourceType: "message",
        metadata: { messageIds: deleted, count: deleted.length },
      });
      const threadIds = [...new Set(found.map((f) => f.threadId).filter((t): t is string => Boolean(t)))];
      for (const threadId of threadIds) {
        await tx
          .update(threads)
          .set({ messageCount: sql`(select count(*) from messages m where m.thread_id = ${threadId})` })
          .where(eq(threads.id, threadId));
      }
    });
    for (const f of files) await storage().delete(f.storageKey);
  }
  return {
    object: "batch_delete_result" as const,
    deleted,
    failed: unique
      .filter((id) => !foundIds.has(id))
      .map((id) => ({ id, code: "resource_not_found", message: "No such message." })),
  };
}
