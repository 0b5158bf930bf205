import type { DbOrTx } from "@/db";
import type { Principal } from "@/lib/auth/principal";
import { attachableObject } from "@/lib/buckets/gate";
import { ApiError, invalidRequest, notFound } from "@/lib/core/errors";
import { storage } from "@/lib/providers/storage";
import { MAX_PDF_BYTES } from "./geometry";
import type { PostalAddress } from "./contracts";
import type { Payment } from "./payment";
import { renderTemplate } from "./templates";
import { pdfBytesOf } from "./verify";

/**
 * A letter's document from exactly one source: `pdfBase64` (decoded, at most 4 MB), `file` (an
 * object of the organization's buckets that may leave it: finalized, scanned clean — 404, 409
 * while scanning, 403 infected, as for attachments; at most 4 MB) or `templateId` (rendered with
 * `to`, `from` and `templateData`, with the `payment` slip as its last page). Answers the bytes and the field that carried them.
 */
export async function documentOf(
  db: DbOrTx,
  principal: Principal,
  body: {
    pdfBase64?: string;
    file?: { objectId: string };
    templateId?: string;
    templateData?: Record<string, unknown>;
    to?: PostalAddress;
    from?: PostalAddress;
    payment?: Payment;
  },
): Promise<{ bytes: Uint8Array; sourceParam: string; templateId: string | null }> {
  const given = (["pdfBase64", "file", "templateId"] as const).filter((k) => body[k] !== undefined);
  if (given.length > 1)
    throw invalidRequest(
      `Give exactly one document source: pdfBase64, file or templateId, not ${given.join(" and ")}.`,
      given[given.length - 1] ?? "templateId",
    );
  if (body.payment !== undefined && body.templateId === undefined && given.length > 0)
    throw invalidRequest(
      "payment goes with templateId: the slip is rendered into the template's PDF (put it in your own PDF yourself).",
      "payment",
    );
  if (body.file !== undefined) {
    if (body.templateData !== undefined) throw invalidRequest("templateData goes with templateId.", "templateData");
    const row = await attachableObject(db, principal.orgId, body.file.objectId, "file.objectId");
    if (row.bytes > MAX_PDF_BYTES)
      throw new ApiError(
        "payload_too_large",
        `The object is ${row.bytes} bytes; a letter's PDF is at most ${MAX_PDF_BYTES} bytes.`,
        "file.objectId",
      );
    const bytes = await storage().get(row.storageKey);
    if (!bytes) throw notFound("object content", "file.objectId");
    return { bytes: new Uint8Array(bytes), sourceParam: "file", templateId: null };
  }
  if (body.pdfBase64 !== undefined) {
    if (body.templateData !== undefined) throw invalidRequest("templateData goes with templateId.", "templateData");
    return { bytes: pdfBytesOf(body.pdfBase64), sourceParam: "pdfBase64", templateId: null };
  }
  if (body.templateId === undefined)
    throw invalidRequest(
      "Give a document source: pdfBase64, file or templateId (with to and templateData).",
      "pdfBase64",
    );
  if (!body.to) throw invalidRequest("A template is rendered for a recipient: give to.", "to");
  const bytes = await renderTemplate(db, principal, {
    templateId: body.templateId,
    to: body.to,
    from: body.from,
    templateData: body.templateData,
    payment: body.payment,
  });
  return { bytes, sourceParam: "templateId", templateId: body.templateId };
}
