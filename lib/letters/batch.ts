import { and, asc, eq, gt, lte } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { uuidv7 } from "@/db/ids";
import { type LetterBatchItemError, letterBatches, letterBatchItems } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { BudgetTripped } from "@/lib/budgets/enforce";
import { recordAudit } from "@/lib/core/audit";
import { ApiError, notFound } from "@/lib/core/errors";
import { storage } from "@/lib/providers/storage";
import { registerFanoutKind, startFanout } from "@/lib/workflows/fanout";
import type { PostalAddress, PrintOptions } from "./contracts";
import type { Delivery } from "./geometry";
import { letterPdfKey, recordLetterInTx } from "./letters";
import { type Payment, paymentOf, paymentRecord } from "./payment";
import { priceLetter } from "./price";
import { renderTemplateRow, type TemplateRow, usableTemplate } from "./templates";
import { refusal, verifyPdf } from "./verify";

/**
 * Letter batches (`POST /v1/letters/batch`): one template to up to 1,000 recipients, one letter
 * each, made by the `letter_batch` fan-out kind (lib/workflows/fanout.ts).
 *
 * - `sendLetterBatch` checks the template, stores the batch and one item per recipient — each with
 *   the id its letter will have — and starts the fan-out, in one transaction (202).
 * - A chunk's `prepare` (outside its transaction: Chromium is slow) renders, verifies and prices
 *   each pending recipient's letter exactly as a single send does and stores the PDF under the
 *   letter's id (a retry overwrites the same object). Its `apply` (the chunk's transaction) records
 *   each letter in a savepoint with its spend hold (`recordLetterInTx`) and marks the item `created`;
 *   a refused recipient (a failing check, the spend cap, an unusable template) is marked `failed`
 *   with the code, message and `param` a single send would answer, and the others go on.
 * - At most one letter per recipient: the item's letter id is fixed when the batch is stored, the
 *   item moves out of `pending` in the transaction that records its letter, and the primitive
 *   applies a chunk once.
 *
 * Decisions: the letters are made as the system actor `system:letter_batch` of the organization
 * (audited per letter); with a hosted Inngest the test letters' clock starts at the next sweep
 * (the chunk cannot publish after its own commit), with the embedded executor at once.
 */

export const LETTER_BATCH_KIND = "letter_batch";
/** Recipients per chunk: each is a Chromium render, so chunks stay small. */
const CHUNK_SIZE = 25;

interface BatchRequest {
  from: PostalAddress | null;
  print: PrintOptions;
  delivery: Delivery;
  maxPages: number | null;
  description: string | null;
  metadata: Record<string, unknown>;
}

export interface SendLetterBatchBody {
  templateId: string;
  from?: PostalAddress;
  recipients: { to: PostalAddress; templateData?: Record<string, unknown>; payment?: Payment }[];
  print: PrintOptions;
  delivery: Delivery;
  maxPages?: number;
  description?: string;
  metadata?: Record<string, unknown>;
}

const batchPrincipal = (orgId: string): Principal => ({
  orgId,
  userId: "00000000-0000-0000-0000-000000000000",
  apiKeyId: null,
  scopes: new Set(),
  inboxIds: null,
  actor: "system:letter_batch",
  ip: null,
  requestId: null,
});

export async function sendLetterBatch(db: Db, principal: Principal, body: SendLetterBatchBody) {
  const template = await usableTemplate(db, principal, body.templateId);
  const request: BatchRequest = {
    from: body.from ?? null,
    print: body.print,
    delivery: body.delivery,
    maxPages: body.maxPages ?? null,
    description: body.description ?? null,
    metadata: body.metadata ?? {},
  };
  const { batchId, afterCommit } = await db.transaction(async (tx) => {
    const batchId = uuidv7();
    await tx.insert(letterBatches).values({
      id: batchId,
      orgId: principal.orgId,
      templateId: template.id,
      request: request as unknown as Record<string, unknown>,
      total: body.recipients.length,
    });
    for (let i = 0; i < body.recipients.length; i += 500) {
      await tx.insert(letterBatchItems).values(
        body.recipients.slice(i, i + 500).map((r, j) => ({
          batchId,
          position: i + j,
          letterId: uuidv7(),
          toAddress: r.to,
          templateData: r.templateData ?? {},
          payment: r.payment ? paymentRecord(r.payment) : null,
        })),
      );
    }
    const fanout = await startFanout(tx, {
      kind: LETTER_BATCH_KIND,
      params: { batchId, total: body.recipients.length },
      chunkSize: CHUNK_SIZE,
    });
    await tx.update(letterBatches).set({ fanoutId: fanout.id }).where(eq(letterBatches.id, batchId));
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "letter_batch.created",
      resourceType: "letter_batch",
      resourceId: batchId,
      metadata: { templateId: template.id, recipients: body.recipients.length },
    });
    return { batchId, afterCommit: fanout.afterCommit };
  });
  await afterCommit();
  return getLetterBatch(db, principal, batchId);
}

export async function getLetterBatch(db: DbOrTx, principal: Principal, batchId: string) {
  const [batch] = await db
    .select()
    .from(letterBatches)
    .where(and(eq(letterBatches.orgId, principal.orgId), eq(letterBatches.id, batchId)));
  if (!batch) throw notFound("letter batch", "batchId");
  const items = await db
    .select({
      position: letterBatchItems.position,
      status: letterBatchItems.status,
      letterId: letterBatchItems.letterId,
      error: letterBatchItems.error,
    })
    .from(letterBatchItems)
    .where(eq(letterBatchItems.batchId, batch.id))
    .orderBy(asc(letterBatchItems.position));
  const count = (s: string) => items.filter((i) => i.status === s).length;
  const pending = count("pending");
  return {
    object: "letter_batch" as const,
    id: batch.id,
    status: pending === 0 ? ("completed" as const) : ("processing" as const),
    templateId: batch.templateId,
    total: batch.total,
    created: count("created"),
    failed: count("failed"),
    pending,
    items: items.map((i) => ({
      index: i.position,
      status: i.status,
      letterId: i.status === "created" ? i.letterId : null,
      error: i.error ?? null,
    })),
    createdAt: batch.createdAt.toISOString(),
  };
}

// ---- the fan-out kind -------------------------------------------------------------------------

const key = (i: number) => String(i).padStart(7, "0");
const index = (k: string | null) => (k === null ? -1 : Number(k));

type Member = { key: string; data: Record<string, unknown> };
type Prepared =
  | { ok: true; pageCount: number; sizeBytes: number; priceCents: number; pdfKey: string }
  | { ok: false; error: LetterBatchItemError };

async function batchOf(db: DbOrTx, params: Record<string, unknown>) {
  const [batch] = await db
    .select()
    .from(letterBatches)
    .where(eq(letterBatches.id, String(params.batchId)));
  return batch ?? null;
}

/**
 * Renders, verifies, prices and stores one recipient's letter, as a single send does (the template
 * is read once per chunk: `usableTemplate`, the same checks `documentOf` makes). A render Chromium
 * could not finish (`provider_unavailable`: the browser died or timed out on a loaded machine) is
 * tried once more before the recipient is reported failed, so a transient fault does not cost a
 * recipient its letter; the PDF is then verified exactly as a single send's.
 */
async function prepareOne(
  template: TemplateRow,
  orgId: string,
  request: BatchRequest,
  item: { letterId: string; to: PostalAddress; templateData: Record<string, unknown>; payment: Payment | null },
): Promise<Prepared> {
  try {
    const input = { to: item.to, from: request.from, templateData: item.templateData, payment: item.payment };
    const bytes = await renderTemplateRow(template, input).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === "provider_unavailable") return renderTemplateRow(template, input);
      throw err;
    });
    const result = await verifyPdf({
      bytes,
      sourceParam: "templateId",
      to: item.to,
      print: request.print,
      delivery: request.delivery,
      maxPages: request.maxPages ?? undefined,
      payment: item.payment,
    });
    if (!result.verification.valid) throw refusal(result);
    const price = priceLetter({
      pageCount: result.measured.pageCount,
      country: item.to.country,
      print: request.print,
      delivery: request.delivery,
    });
    const pdfKey = letterPdfKey(orgId, item.letterId);
    await storage().put(pdfKey, bytes, { contentType: "application/pdf" });
    return {
      ok: true,
      pageCount: result.measured.pageCount,
      sizeBytes: bytes.length,
      priceCents: price.priceCents,
      pdfKey,
    };
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, error: errorOf(err) };
    throw err; // unexpected: the chunk is retried
  }
}

const errorOf = (err: ApiError): LetterBatchItemError => ({ code: err.code, message: err.message, param: err.param });

async function pendingItems(db: DbOrTx, params: Record<string, unknown>, after: string | null, last: string) {
  return db
    .select()
    .from(letterBatchItems)
    .where(
      and(
        eq(letterBatchItems.batchId, String(params.batchId)),
        gt(letterBatchItems.position, index(after)),
        lte(letterBatchItems.position, index(last)),
        eq(letterBatchItems.status, "pending"),
      ),
    )
    .orderBy(asc(letterBatchItems.position));
}

const failItem = (tx: DbOrTx, batchId: string, position: number, error: LetterBatchItemError) =>
  tx
    .update(letterBatchItems)
    .set({ status: "failed", error })
    .where(
      and(
        eq(letterBatchItems.batchId, batchId),
        eq(letterBatchItems.position, position),
        eq(letterBatchItems.status, "pending"),
      ),
    );

registerFanoutKind(LETTER_BATCH_KIND, {
  bounds(_db, params, after, chunkSize, chunks) {
    const total = Number(params.total ?? 0);
    const out: { after: string | null; last: string }[] = [];
    for (let start = index(after) + 1; out.length < chunks && start < total; start += chunkSize) {
      out.push({ after: start === 0 ? null : key(start - 1), last: key(Math.min(total, start + chunkSize) - 1) });
    }
    return Promise.resolve(out);
  },
  async members(db, params, after, last) {
    const rows = await pendingItems(db, params, after, last);
    return rows.map((r) => ({
      key: key(r.position),
      data: {
        position: r.position,
        letterId: r.letterId,
        to: r.toAddress,
        templateData: r.templateData,
        payment: r.payment,
      },
    }));
  },
  async prepare(db, params, members: Member[]) {
    const batch = await batchOf(db, params);
    const out = new Map<number, Prepared>();
    if (!batch) return out;
    const request = batch.request as unknown as BatchRequest;
    let template: TemplateRow;
    try {
      template = await usableTemplate(db, batchPrincipal(batch.orgId), batch.templateId);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      for (const m of members) out.set(Number(m.data.position), { ok: false, error: errorOf(err) });
      return out;
    }
    // All at once: the renderer bounds its own concurrency (LETTER_RENDER_CONCURRENCY warm pages)
    // and the PDF readers theirs (LETTER_PDF_WORKERS), so one letter renders while another is read.
    await Promise.all(
      members.map(async (m) => {
        const item = {
          letterId: String(m.data.letterId),
          to: m.data.to as PostalAddress,
          templateData: (m.data.templateData ?? {}) as Record<string, unknown>,
          payment: paymentOf(m.data.payment),
        };
        out.set(Number(m.data.position), await prepareOne(template, batch.orgId, request, item));
      }),
    );
    return out;
  },
  async apply(tx, _fanoutId, params, members, prepared) {
    const batch = await batchOf(tx, params);
    if (!batch) return 0;
    const principal = batchPrincipal(batch.orgId);
    const request = batch.request as unknown as BatchRequest;
    const ready = (prepared ?? new Map()) as Map<number, Prepared>;
    let written = 0;
    for (const m of members) {
      const position = Number(m.data.position);
      const p = ready.get(position);
      if (!p) continue; // not pending when the chunk was prepared: left for a later run to see
      if (!p.ok) {
        await failItem(tx, batch.id, position, p.error);
        continue;
      }
      const to = m.data.to as PostalAddress;
      try {
        await tx.transaction(async (sp) => {
          await recordLetterInTx(sp, principal, {
            id: String(m.data.letterId),
            to,
            from: request.from,
            print: request.print,
            delivery: request.delivery,
            description: request.description,
            payment: paymentOf(m.data.payment),
            metadata: { ...request.metadata, batchId: batch.id, batchIndex: position },
            pageCount: p.pageCount,
            sizeBytes: p.sizeBytes,
            priceCents: p.priceCents,
            pdfKey: p.pdfKey,
            leaseToken: null,
          });
          await sp
            .update(letterBatchItems)
            .set({ status: "created" })
            .where(and(eq(letterBatchItems.batchId, batch.id), eq(letterBatchItems.position, position)));
        });
        written++;
      } catch (err) {
        if (!(err instanceof BudgetTripped)) throw err;
        await failItem(tx, batch.id, position, { ...errorOf(err.toApiError()), param: null });
      }
    }
    return written;
  },
});
