import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { bucketObjects } from "@/db/schema";
import { ApiError } from "@/lib/core/errors";

type State = (typeof bucketObjects.$inferSelect)["state"];

/** Whether anyone but the owner may receive an object (share links, attachments): `clean`, or trusted `skipped`. */
export const servable = (state: State) => state === "clean" || state === "skipped";

/**
 * Inbound email attachments are served only once their scan found them clean (their object in the
 * inbound bucket); attachments with no such object (outbound ones, the sender's own bytes) pass.
 * Answers the attachment, or throws 409 while the scan is pending and 403 when it is infected or
 * could not be scanned.
 */
export async function refuseUnscannedAttachment<A extends { id: string }>(db: DbOrTx, attachment: A): Promise<A> {
  const [row] = await db.select({ state: bucketObjects.state, signature: bucketObjects.scanSignature }).from(bucketObjects).where(eq(bucketObjects.attachmentId, attachment.id));
  if (!row || servable(row.state)) return attachment;
  if (row.state === "infected") throw new ApiError("not_permitted", `This attachment is infected (${row.signature ?? "malware"}) and is never served.`, "attachmentId");
  if (row.state === "failed") throw new ApiError("not_permitted", "This attachment could not be scanned for malware, so it is not served.", "attachmentId");
  throw new ApiError("conflict", "This attachment has not been scanned for malware yet (scanStatus pending); try again shortly.", "attachmentId");
}
