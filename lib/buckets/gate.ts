import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { bucketObjects } from "@/db/schema";
import { ApiError, notFound } from "@/lib/core/errors";
import { isUuid } from "@/lib/core/schemas";

type ObjectRow = typeof bucketObjects.$inferSelect;
type State = ObjectRow["state"];

/** Whether anyone but the owner may receive an object (share links, attachments): `clean`, or trusted `skipped`. */
export const servable = (state: State) => state === "clean" || state === "skipped";

/**
 * Refuses an object that may not leave the organization (`use`: what the caller tried, e.g.
 * "shared", "attached"): 409 while its scan has not finished, 403 when it is infected or could not
 * be scanned. Share links, bundles and attachments from storage all answer with these codes.
 */
export function refuseUnservable(
  row: { state: State; scanSignature?: string | null },
  param: string,
  use: string,
): void {
  if (servable(row.state)) return;
  if (row.state === "pending" || row.state === "uploading")
    throw new ApiError(
      "conflict",
      `The object's malware scan has not finished; it can be ${use} once it is clean.`,
      param,
    );
  const why =
    row.state === "infected"
      ? `infected${row.scanSignature ? ` (${row.scanSignature})` : ""}`
      : "could not be scanned for malware";
  throw new ApiError("not_permitted", `Only clean objects can be ${use}; this one is ${why}.`, param);
}

/**
 * Inbound email attachments are served only once their scan found them clean (their object in the
 * inbound bucket); attachments with no such object (outbound ones, the sender's own bytes) pass.
 * Answers the attachment, or throws 409 while the scan is pending and 403 when it is infected or
 * could not be scanned.
 */
export async function refuseUnscannedAttachment<A extends { id: string }>(db: DbOrTx, attachment: A): Promise<A> {
  const [row] = await db
    .select({ state: bucketObjects.state, signature: bucketObjects.scanSignature })
    .from(bucketObjects)
    .where(eq(bucketObjects.attachmentId, attachment.id));
  if (!row || servable(row.state)) return attachment;
  if (row.state === "infected")
    throw new ApiError(
      "not_permitted",
      `This attachment is infected (${row.signature ?? "malware"}) and is never served.`,
      "attachmentId",
    );
  if (row.state === "failed")
    throw new ApiError(
      "not_permitted",
      "This attachment could not be scanned for malware, so it is not served.",
      "attachmentId",
    );
  throw new ApiError(
    "conflict",
    "This attachment has not been scanned for malware yet (scanStatus pending); try again shortly.",
    "attachmentId",
  );
}

/**
 * An object of the organization (any bucket) that may leave it, for a send's `attachments[].objectId`:
 * 404 naming `param` when it is not the organization's (or not finalized), 409 while its scan
 * has not finished, 403 when infected or unscannable.
 */
export async function attachableObject(db: DbOrTx, orgId: string, objectId: string, param: string): Promise<ObjectRow> {
  const [row] = isUuid(objectId)
    ? await db
        .select()
        .from(bucketObjects)
        .where(and(eq(bucketObjects.orgId, orgId), eq(bucketObjects.id, objectId)))
    : [];
  if (!row || row.state === "uploading") throw notFound("object", param);
  refuseUnservable(row, param, "attached");
  return row;
}
