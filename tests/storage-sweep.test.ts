import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { attachments } from "@/db/schema";
import { sweepStoredBytes } from "@/lib/buckets/sweep";
import { attachmentStorageOwner } from "@/lib/messages/attachments";
import { type NewMessage, storeMessage } from "@/lib/messages/store";
import { storage } from "@/lib/providers/storage";
import { sweepOrphans } from "@/lib/providers/storage/sweep";
import { newInbox, newOrg } from "./harness";

/**
 * Attachment bytes are written before their transaction commits. When it rolls back, the bytes
 * belong to no row; the storage sweep collects them (and never touches committed ones).
 */
function inbound(orgId: string, inboxId: string): NewMessage {
  return {
    orgId,
    inboxId,
    direction: "inbound",
    status: "received",
    channel: "email",
    fromAddress: "sender@example.com",
    to: ["x@example.com"],
    cc: [],
    bcc: [],
    subject: "files",
    textBody: "see attached",
    messageIdHeader: `<${randomUUID()}@example.com>`,
    references: [],
  };
}

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of storage().list(prefix)) keys.push(o.key);
  return keys;
}

test("bytes of a rolled-back transaction are collected by the sweep; committed attachments stay", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org);
  const db = await getDb();
  const prefix = `attachments/${org.orgId}/`;

  await expect(
    db.transaction(async (tx) => {
      await storeMessage(tx, inbound(org.orgId, inbox.id), [
        { filename: "lost.txt", contentType: "text/plain", content: Buffer.from("rolled back") },
      ]);
      throw new Error("rollback on purpose");
    }),
  ).rejects.toThrow("rollback on purpose");
  const [orphan] = await keysUnder(prefix);
  expect(orphan).toBeDefined();
  expect(await db.select().from(attachments).where(eq(attachments.orgId, org.orgId))).toEqual([]);

  const kept = await db.transaction((tx) =>
    storeMessage(tx, inbound(org.orgId, inbox.id), [
      { filename: "kept.csv", contentType: "text/csv", content: Buffer.from("a,b\n") },
    ]),
  );
  const [row] = await db.select().from(attachments).where(eq(attachments.messageId, kept.id));
  expect(row?.storageKey).toMatch(new RegExp(`^${prefix}`));
  expect(await storage().head(row?.storageKey ?? "")).toMatchObject({ size: 4, contentType: "text/csv" });
  expect((await keysUnder(prefix)).sort()).toEqual([orphan, row?.storageKey].sort());

  // Within the grace period (default an hour) the deployment-wide sweep leaves both alone.
  await sweepStoredBytes(db);
  expect((await keysUnder(prefix)).sort()).toEqual([orphan, row?.storageKey].sort());

  // Past it, the orphan goes and the committed attachment stays (this tenant's prefix only: other
  // test files share the storage directory but not this database).
  const owner = { ...attachmentStorageOwner(db), prefix };
  const swept = await sweepOrphans(storage(), [owner], { graceSeconds: 60, now: new Date(Date.now() + 120_000) });
  expect(swept).toEqual({ scanned: 2, deleted: 1 });
  expect(await keysUnder(prefix)).toEqual([row?.storageKey]);
  expect((await storage().get(row?.storageKey ?? ""))?.toString()).toBe("a,b\n");
});
