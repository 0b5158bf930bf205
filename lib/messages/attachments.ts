import { createHmac, timingSafeEqual } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { attachments } from "@/db/schema";
import { refuseUnscannedAttachment } from "@/lib/buckets/gate";
import { BinaryBody } from "@/lib/core/contract";
import { notFound } from "@/lib/core/errors";
import { safeMediaType } from "@/lib/core/media-type";
import type { Principal } from "@/lib/auth/principal";
import { userContentBaseUrl } from "@/lib/env";
import { storage } from "@/lib/providers/storage";
import type { StorageOwner } from "@/lib/providers/storage/sweep";
import { urlSigningSecret } from "@/lib/settings";
import { toAttachment } from "./read";
import { isUuid } from "@/lib/core/schemas";

type AttachmentRow = typeof attachments.$inferSelect;

async function findAttachment(db: DbOrTx, principal: Principal, attachmentId: string): Promise<AttachmentRow> {
  const [a] = await db
    .select()
    .from(attachments)
    .where(and(eq(attachments.orgId, principal.orgId), eq(attachments.id, attachmentId)));
  if (!a) throw notFound("attachment", "attachmentId");
  return a;
}

async function bytesOf(a: AttachmentRow): Promise<BinaryBody> {
  const bytes = await storage().get(a.storageKey);
  if (!bytes) throw notFound("attachment content", "attachmentId");
  // Rows stored before media types were validated may hold anything; never echo that into a header.
  return new BinaryBody(bytes, safeMediaType(a.contentType), a.filename);
}

/** The attachment's raw bytes (reads are scoped through the owning organization). */
export async function attachmentContent(db: DbOrTx, principal: Principal, attachmentId: string): Promise<BinaryBody> {
  const a = await refuseUnscannedAttachment(db, await findAttachment(db, principal, attachmentId));
  return bytesOf(a);
}

const urlSecret = urlSigningSecret;

export type Disposition = "attachment" | "inline";

/** The signature covers the attachment, the expiry and the disposition the link asks for. */
const signature = (secret: Buffer, id: string, expires: number, disposition: Disposition) =>
  createHmac("sha256", secret).update(`attachment:${id}:${expires}:${disposition}`).digest("base64url");

/**
 * A short-lived signed URL that downloads the attachment without an API key (`downloadUrl`), and
 * one that asks for inline display (`shareUrl`, `inline=1`, signed as such; the route shows inline
 * only types that cannot run script, and downloads the rest). Both are on USER_CONTENT_ORIGIN when
 * configured, else on the public base URL.
 */
export async function attachmentDownloadUrl(
  db: DbOrTx,
  principal: Principal,
  attachmentId: string,
  expiresInSeconds: number,
) {
  const a = await refuseUnscannedAttachment(db, await findAttachment(db, principal, attachmentId));
  const expires = Math.floor(Date.now() / 1000) + expiresInSeconds;
  const secret = await urlSecret(db);
  const link = (disposition: Disposition) => {
    const url = new URL(`${userContentBaseUrl()}/files/attachments/${a.id}`);
    url.searchParams.set("expires", String(expires));
    if (disposition === "inline") url.searchParams.set("inline", "1");
    url.searchParams.set("signature", signature(secret, a.id, expires, disposition));
    return url.toString();
  };
  return { attachment: toAttachment(a), downloadUrl: link("attachment"), expiresInSeconds, shareUrl: link("inline") };
}

/** Serves a signed download URL; null when the signature (over id, expiry and disposition) is wrong or expired. */
export async function signedAttachment(
  db: DbOrTx,
  attachmentId: string,
  expires: string | null,
  sig: string | null,
  disposition: Disposition,
): Promise<BinaryBody | null> {
  const exp = Number(expires);
  if (!sig || !Number.isInteger(exp) || exp < Date.now() / 1000) return null;
  const expected = Buffer.from(signature(await urlSecret(db), attachmentId, exp, disposition));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const [a] = await db.select().from(attachments).where(eq(attachments.id, attachmentId));
  return a ? bytesOf(a) : null;
}

/** For the storage sweep: attachment bytes live at `attachments/<orgId>/<attachmentId>`. */
export function attachmentStorageOwner(db: DbOrTx): StorageOwner {
  return {
    prefix: "attachments/",
    async owned(keys) {
      const ids = keys.map((k) => k.split("/").pop() ?? "").filter((id) => isUuid(id));
      if (ids.length === 0) return new Set();
      const rows = await db
        .select({ storageKey: attachments.storageKey })
        .from(attachments)
        .where(inArray(attachments.id, ids));
      return new Set(rows.map((r) => r.storageKey));
    },
  };
}
