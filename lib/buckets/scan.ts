import { and, eq, lt } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { attachments, bucketObjects } from "@/db/schema";
import { appendEvent } from "@/lib/events/ledger";
import { scanner } from "@/lib/providers/scanner";
import { ScanError } from "@/lib/providers/scanner/types";
import { storage } from "@/lib/providers/storage";
import { publishWorkflowEvents, publishWorkflowEventsNow } from "@/lib/workflows/publish";
import { bucketPublicId } from "./ids";
import { ensureBuckets, type ObjectRow, reservedBucket } from "./bucket";
import { objectScanRequested } from "./workflow-events";

export { servable } from "./gate";

/** Starts the scan of `pending` objects with the caller's transaction (embedded) or after it (Inngest). */
export function requestScan(tx: DbOrTx, rows: Pick<ObjectRow, "id" | "orgId">[]): Promise<() => Promise<void>> {
  // The event id makes a repeated request for the same object one run.
  return publishWorkflowEvents(
    tx,
    rows.map((r) => objectScanRequested.create({ objectId: r.id, orgId: r.orgId }, { id: `scan-${r.id}` })),
  );
}

export type ScanOutcome =
  | { status: "clean" | "infected" | "failed"; signature: string | null; engine: string | null; error?: string }
  | { status: "gone" | "done" };

/**
 * Moves an object out of `pending` exactly once and emits `object.scanned` in the same
 * transaction. A row that already left `pending` (a rerun) is left as it is.
 */
async function settle(
  db: DbOrTx,
  row: ObjectRow,
  outcome: { status: "clean" | "infected" | "failed"; signature: string | null; engine: string | null; error?: string },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(bucketObjects)
      .set({
        state: outcome.status,
        scanSignature: outcome.signature,
        scanEngine: outcome.engine,
        scanError: outcome.error ?? null,
        scannedAt: new Date(),
      })
      .where(and(eq(bucketObjects.id, row.id), eq(bucketObjects.state, "pending")))
      .returning();
    if (!updated) return false;
    let messageId: string | null = null;
    if (updated.attachmentId) {
      const [a] = await tx
        .select({ messageId: attachments.messageId })
        .from(attachments)
        .where(eq(attachments.id, updated.attachmentId));
      messageId = a?.messageId ?? null;
    }
    await appendEvent(tx, {
      orgId: updated.orgId,
      type: "object.scanned",
      partitionKey: `bucket:${updated.bucketId}`,
      data: {
        objectId: updated.id,
        bucketId: bucketPublicId(updated.bucketId),
        filename: updated.filename,
        bytes: updated.bytes,
        contentType: updated.contentType,
        scanStatus: updated.state,
        signature: updated.scanSignature,
        engine: updated.scanEngine,
        ...(updated.attachmentId ? { attachmentId: updated.attachmentId, messageId } : {}),
        scannedAt: updated.scannedAt?.toISOString() ?? null,
      },
    });
    return true;
  });
}

async function pendingRow(db: DbOrTx, objectId: string): Promise<ObjectRow | null> {
  const [row] = await db.select().from(bucketObjects).where(eq(bucketObjects.id, objectId));
  return row ?? null;
}

/**
 * One scan attempt (a workflow step): streams the stored bytes through the configured scanner
 * and records `clean` or `infected`. A scanner that cannot decide throws ScanError, so the step is
 * retried; after the last attempt the workflow records `failed` (never `clean`).
 */
export async function scanObject(db: DbOrTx, objectId: string): Promise<ScanOutcome> {
  const row = await pendingRow(db, objectId);
  if (!row) return { status: "gone" };
  if (row.state !== "pending") return { status: "done" };
  const found = await storage().stream(row.storageKey);
  if (!found) {
    const outcome = { status: "failed" as const, signature: null, engine: null, error: "the stored bytes are missing" };
    await settle(db, row, outcome);
    return outcome;
  }
  const verdict = await scanner().scan(found.body);
  const outcome =
    verdict.status === "infected"
      ? { status: "infected" as const, signature: verdict.signature, engine: verdict.engine }
      : { status: "clean" as const, signature: null, engine: verdict.engine };
  await settle(db, row, outcome);
  return outcome;
}

/** After the last failed attempt: `failed`, with the reason. */
export async function markScanFailed(db: DbOrTx, objectId: string, error: string): Promise<void> {
  const row = await pendingRow(db, objectId);
  if (row?.state === "pending")
    await settle(db, row, { status: "failed", signature: null, engine: scanner().kind, error: error.slice(0, 500) });
}

export { ScanError };

/**
 * Inbound email attachments are objects of the organization's reserved inbound bucket that point
 * at the attachment's bytes; they are scanned like uploads. Called by the message store in the
 * transaction that stores an inbound message.
 */
export async function trackInboundAttachments(tx: DbOrTx, messageId: string): Promise<void> {
  const rows = await tx.select().from(attachments).where(eq(attachments.messageId, messageId));
  if (rows.length === 0) return;
  const orgId = rows[0]?.orgId ?? "";
  await ensureBuckets(tx, orgId);
  const bucket = await reservedBucket(tx, orgId, "inbound");
  const objects = await tx
    .insert(bucketObjects)
    .values(
      rows.map((a) => ({
        orgId,
        bucketId: bucket.id,
        filename: a.filename ?? "attachment",
        contentType: a.contentType,
        bytes: a.sizeBytes,
        storageKey: a.storageKey,
        state: "pending" as const,
        attachmentId: a.id,
        finalizedAt: new Date(),
      })),
    )
    .returning({ id: bucketObjects.id, orgId: bucketObjects.orgId });
  // Embedded: in this transaction. With Inngest the after-commit send is not reachable from here;
  // the housekeeping sweep (rescanStale) publishes scans of objects still pending after a while.
  await requestScan(tx, objects);
}

/** Objects `pending` for longer than `olderThanSeconds` get their scan requested again (lost events). */
export async function rescanStale(db: Db, olderThanSeconds = 900): Promise<number> {
  const rows = await db
    .select({ id: bucketObjects.id, orgId: bucketObjects.orgId })
    .from(bucketObjects)
    .where(
      and(
        eq(bucketObjects.state, "pending"),
        lt(bucketObjects.finalizedAt, new Date(Date.now() - olderThanSeconds * 1000)),
      ),
    )
    .limit(1000);
  // A fresh event id per sweep: the original run may have ended without settling the object.
  if (rows.length)
    await publishWorkflowEventsNow(
      db,
      rows.map((r) => objectScanRequested.create({ objectId: r.id, orgId: r.orgId })),
    );
  return rows.length;
}
