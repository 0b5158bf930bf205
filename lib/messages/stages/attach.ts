import type { DbOrTx } from "@/db";
import { attachableObject } from "@/lib/buckets/gate";
import { shareLinkInBodies } from "@/lib/buckets/shares";
import { ApiError, invalidRequest, notFound } from "@/lib/core/errors";
import { safeMediaType } from "@/lib/core/media-type";
import { storage } from "@/lib/providers/storage";
import type { StoredAttachment } from "../store";
import type { ApprovedSend, AttachedSend, LinkedObject, RequestedAttachment } from "./draft";

/** What a message may carry natively (inline and stored files together); a storage object over it needs a link. */
export const MAX_NATIVE_ATTACH_BYTES = 24 * 1024 * 1024;

type ObjectEntry = Extract<RequestedAttachment, { object: unknown }>;
type ObjectRow = Awaited<ReturnType<typeof attachableObject>>;

const MiB = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Stage 5 (after policy, so a refused send reads no bytes): the files that go with the message.
 * Inline files as decoded. Every `objectId` must be an object of the organization (404 naming
 * `attachments[i].objectId`) that may leave it: clean or trusted skipped (409 while its scan runs,
 * 403 infected or unscannable — the codes of share links). Then, in request order:
 * - `attachment` (the default): fetched and attached; inline and these together over 24 MiB is 413;
 * - `auto`: attached while it fits in what is left of the 24 MiB, otherwise delivered by link;
 * - `link`, and `auto` past the limit: never attached, and the body is never edited — the text or
 *   html must already carry an open share link of the object (or of a bundle holding it):
 *   `link` without one is 400, `auto` without one 413 (it does not fit and has no link).
 * `filename` and `contentType` override the object's own.
 */
export async function attachFiles<T extends Pick<ApprovedSend, "principal" | "attachments" | "text" | "html">>(
  db: DbOrTx,
  a: T,
): Promise<T & Pick<AttachedSend, "files" | "linked">> {
  const orgId = a.principal.orgId;
  const rows = new Map<string, ObjectRow>();
  for (const entry of a.attachments) {
    if ("object" in entry)
      rows.set(entry.param, await attachableObject(db, orgId, entry.object.id, `${entry.param}.objectId`));
  }
  const sizeOf = (entry: RequestedAttachment) =>
    "inline" in entry ? entry.inline.content.length : (rows.get(entry.param)?.bytes ?? 0);

  // What must be attached first, then `auto` objects in request order while they fit.
  let used = 0;
  const attach = new Set<string>();
  for (const entry of a.attachments) {
    if ("object" in entry && entry.object.delivery !== "attachment") continue;
    used += sizeOf(entry);
    if (used > MAX_NATIVE_ATTACH_BYTES) {
      throw new ApiError(
        "payload_too_large",
        `Attachments are over the ${MiB(MAX_NATIVE_ATTACH_BYTES)} a message can carry (${MiB(used)} with this one). Send large stored files with \`delivery: "link"\` or \`"auto"\` and a share link in the body.`,
        "object" in entry ? `${entry.param}.objectId` : entry.param,
      );
    }
    attach.add(entry.param);
  }
  const byLink: ObjectEntry[] = [];
  for (const entry of a.attachments) {
    if (!("object" in entry) || entry.object.delivery === "attachment") continue;
    if (entry.object.delivery === "auto" && used + sizeOf(entry) <= MAX_NATIVE_ATTACH_BYTES) {
      used += sizeOf(entry);
      attach.add(entry.param);
    } else byLink.push(entry);
  }

  const linked: LinkedObject[] = [];
  for (const entry of byLink) {
    const row = rows.get(entry.param);
    if (!row) continue;
    const shareLinkId = await shareLinkInBodies(db, orgId, row.id, [a.text, a.html]);
    if (!shareLinkId) {
      const how =
        "Create a share link of the object (POST /v1/buckets/{bucketId}/objects/{objectId}/share-links) and put its URL in `text` or `html`; the service never edits the body.";
      if (entry.object.delivery === "link")
        throw invalidRequest(
          `\`delivery: "link"\` needs an open share link of object ${row.id} in the message body. ${how}`,
          `${entry.param}.delivery`,
        );
      throw new ApiError(
        "payload_too_large",
        `Object ${row.id} (${MiB(row.bytes)}) does not fit in the ${MiB(MAX_NATIVE_ATTACH_BYTES)} a message can carry, and the body has no share link of it. ${how}`,
        `${entry.param}.objectId`,
      );
    }
    linked.push({
      objectId: row.id,
      filename: entry.object.filename ?? row.filename,
      sizeBytes: row.bytes,
      shareLinkId,
    });
  }

  const files: StoredAttachment[] = [];
  for (const entry of a.attachments) {
    if (!attach.has(entry.param)) continue;
    if ("inline" in entry) {
      files.push(entry.inline);
      continue;
    }
    const row = rows.get(entry.param);
    const content = row ? await storage().get(row.storageKey) : null;
    if (!row || !content) throw notFound("object content", `${entry.param}.objectId`);
    files.push({
      filename: entry.object.filename ?? row.filename,
      contentType: entry.object.contentType ?? safeMediaType(row.contentType),
      content,
      disposition: "attachment",
    });
  }
  return { ...a, files, linked };
}
