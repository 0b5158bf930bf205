import { readFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { bucketObjects } from "@/db/schema";
import { scanObject } from "@/lib/buckets/scan";
import { storage } from "@/lib/providers/storage";
import { uploadObject } from "./bucket-helpers";
import { call, newOrg, type TestOrg } from "./harness";
import { TO } from "./fixtures/letters";

/**
 * The `file` document source: a PDF stored in one of the organization's buckets verifies and sends
 * like `pdfBase64`; an object still being scanned is 409, another organization's is 404, two
 * sources at once are 400.
 */

const pdf = readFileSync(new URL("./fixtures/letters/a4-good.pdf", import.meta.url));

/**
 * A stored PDF: uploaded through the API (the in-process upload route takes text, so a placeholder
 * of the PDF's length), its stored bytes then replaced by the PDF's; scanned when `scan`.
 */
async function storedPdf(org: TestOrg, scan: boolean) {
  const up = await uploadObject(org, {
    filename: "letter.pdf",
    content: "x".repeat(pdf.length),
    contentType: "application/pdf",
  });
  const db = await getDb();
  const [row] = await db.select().from(bucketObjects).where(eq(bucketObjects.id, up.objectId));
  if (!row) throw new Error("no object row");
  await storage().put(row.storageKey, pdf, { contentType: "application/pdf" });
  if (scan) await scanObject(db, up.objectId);
  return up;
}

test("a clean bucket object is a letter's PDF: verify and send; scanning 409, foreign 404, two sources 400", async () => {
  const o = await newOrg();
  const stored = await storedPdf(o, true);
  const verified = await call("POST", "/v1/letters/verify", {
    key: o.secret,
    body: { file: { objectId: stored.objectId }, to: TO },
  });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  expect(verified.body).toMatchObject({ valid: true, pageCount: 1 });
  const sent = await call("POST", "/v1/letters", {
    key: o.secret,
    body: { file: { objectId: stored.objectId }, to: TO },
  });
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  expect(sent.body).toMatchObject({ status: "queued", pageCount: 1, sizeBytes: pdf.length });

  const scanning = await storedPdf(o, false);
  const pending = await call("POST", "/v1/letters/verify", {
    key: o.secret,
    body: { file: { objectId: scanning.objectId }, to: TO },
  });
  expect(pending.status).toBe(409);
  expect(pending.body.error.param).toBe("file.objectId");

  const other = await newOrg();
  const foreign = await call("POST", "/v1/letters/verify", {
    key: other.secret,
    body: { file: { objectId: stored.objectId }, to: TO },
  });
  expect(foreign.status).toBe(404);
  expect(foreign.body.error.param).toBe("file.objectId");

  const both = await call("POST", "/v1/letters/verify", {
    key: o.secret,
    body: { file: { objectId: stored.objectId }, pdfBase64: pdf.toString("base64"), to: TO },
  });
  expect(both.status).toBe(400);
});
