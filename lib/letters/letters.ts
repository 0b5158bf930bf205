import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { ledgerEvents, letters } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { refuseOnTrip } from "@/lib/budgets/enforce";
import { holdSpendInTx } from "@/lib/budgets/spend";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { ApiError, invalidRequest, notFound } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { appendEvents } from "@/lib/events/ledger";
import { log } from "@/lib/log";
import { enqueueOutbox, finishOutbox, newLeaseToken, type OutboxRow } from "@/lib/outbox/store";
import { PrintRefused, printProvider } from "@/lib/providers/print";
import { simulatedStepMs } from "@/lib/providers/print/simulated";
import { storage } from "@/lib/providers/storage";
import { uuidv7 } from "@/db/ids";
import { publishWorkflowEvents } from "@/lib/workflows/publish";
import type { Letter, LetterStatus, PostalAddress, PrintOptions } from "./contracts";
import type { Delivery } from "./geometry";
import { advanceLetter, isFinal, type LetterRow, letterPartition, moveLetter, statusEvent } from "./lifecycle";
import { type Payment, paymentRecord } from "./payment";
import { addBusinessDays, priceLetter, TRANSIT_DAYS, zoneOf } from "./price";
import { documentOf } from "./source";
import { refusal, verifyPdf } from "./verify";
import { letterSimulate } from "./workflow-events";

/**
 * Letters: send (verify → price → hold → record → hand to the print provider after the commit),
 * read, list, events, cancel and the test-mode `progress`.
 */

export const LETTER_SUBMIT_KIND = "letter.submit";

const ADDRESS_KEYS = [
  "country",
  "name",
  "company",
  "street",
  "houseNumber",
  "poBox",
  "addressLine2",
  "postalCode",
  "city",
] as const;
const addressRecord = (a: PostalAddress): Record<string, string | null> =>
  Object.fromEntries(ADDRESS_KEYS.map((k) => [k, a[k] ?? null]));
const addressOut = (a: Record<string, string | null>) =>
  Object.fromEntries(ADDRESS_KEYS.map((k) => [k, a[k] ?? null])) as Letter["to"];

export function toLetter(r: LetterRow): Letter {
  return {
    object: "letter",
    id: r.id,
    status: r.status,
    testMode: r.testMode,
    to: addressOut(r.toAddress),
    from: r.fromAddress ? addressOut(r.fromAddress) : null,
    delivery: r.delivery,
    print: { color: r.color, sides: r.sides, addressPlacement: r.addressPlacement },
    pageCount: r.pageCount,
    sizeBytes: r.sizeBytes,
    priceCents: r.priceCents,
    currency: "usd",
    description: r.description,
    payment: (r.payment as Letter["payment"]) ?? null,
    metadata: r.metadata,
    timeline: r.timeline,
    expectedDeliveryDate: r.expectedDeliveryDate,
    nextStepAt: r.nextStepAt?.toISOString() ?? null,
    failureReason: r.failureReason,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export interface SendLetterBody {
  to: PostalAddress;
  from?: PostalAddress;
  pdfBase64?: string;
  file?: { objectId: string };
  templateId?: string;
  templateData?: Record<string, unknown>;
  payment?: Payment;
  print: PrintOptions;
  delivery: Delivery;
  maxPages?: number;
  description?: string;
  metadata?: Record<string, unknown>;
  dryRun: boolean;
}

export async function sendLetter(db: Db, principal: Principal, body: SendLetterBody) {
  const { bytes, sourceParam } = await documentOf(db, principal, body);
  const result = await verifyPdf({
    bytes,
    sourceParam,
    to: body.to,
    print: body.print,
    delivery: body.delivery,
    maxPages: body.maxPages,
    payment: body.payment,
  });
  const provider = printProvider();
  const price = priceLetter({
    pageCount: result.measured.pageCount,
    country: body.to.country,
    print: body.print,
    delivery: body.delivery,
  });
  if (body.dryRun) {
    noAuditNeeded("a dry run changes nothing");
    return {
      object: "letter_dry_run" as const,
      dryRun: true as const,
      valid: result.verification.valid,
      priceCents: price.priceCents,
      currency: "usd" as const,
      pageCount: result.measured.pageCount,
      printMode: provider.mode,
      verification: result.verification,
    };
  }
  if (!result.verification.valid) throw refusal(result);

  const id = uuidv7();
  const pdfKey = letterPdfKey(principal.orgId, id);
  await storage().put(pdfKey, bytes, { contentType: "application/pdf" });
  const token = newLeaseToken();
  const { row, entry, after } = await refuseOnTrip(db, () =>
    db.transaction((tx) =>
      recordLetterInTx(tx, principal, {
        id,
        to: body.to,
        from: body.from ?? null,
        print: body.print,
        delivery: body.delivery,
        description: body.description ?? null,
        payment: body.payment ?? null,
        metadata: body.metadata ?? {},
        pageCount: result.measured.pageCount,
        sizeBytes: bytes.length,
        priceCents: price.priceCents,
        pdfKey,
        leaseToken: token,
      }),
    ),
  );
  await after?.();
  const { performOutbox } = await import("@/lib/outbox/relay");
  await performOutbox(db, entry, token, submitLetterEntry);
  return toLetter(row);
}

export const letterPdfKey = (orgId: string, letterId: string) => `letters/${orgId}/${letterId}.pdf`;

/** A verified, priced letter whose PDF is stored: what `recordLetterInTx` records. */
export interface AcceptedLetter {
  id: string;
  to: PostalAddress;
  from: PostalAddress | null;
  print: PrintOptions;
  delivery: Delivery;
  description: string | null;
  payment: Payment | null;
  metadata: Record<string, unknown>;
  pageCount: number;
  sizeBytes: number;
  priceCents: number;
  pdfKey: string;
  /** The caller hands the outbox entry over itself (a send) or leaves it to the relay (null: a batch). */
  leaseToken: string | null;
}

/**
 * Records an accepted letter in the caller's transaction: the spend hold (throws `BudgetTripped`
 * over the cap), the `queued` row, its audit row, the outbox entry `letter.submit`, the first
 * `letter.status_changed` and, in test mode, the simulated clock's workflow event. A send and a
 * batch's chunk both record letters through it.
 */
export async function recordLetterInTx(tx: DbOrTx, principal: Principal, l: AcceptedLetter) {
  const provider = printProvider();
  const testMode = provider.mode === "test";
  const now = new Date();
  const hold = await holdSpendInTx(tx, principal.orgId, l.priceCents, `letter:${l.id}`, now);
  const first = { status: "queued" as const, at: now.toISOString(), reason: "Verified and accepted." };
  const [inserted] = await tx
    .insert(letters)
    .values({
      id: l.id,
      orgId: principal.orgId,
      status: "queued",
      testMode,
      provider: provider.name,
      toAddress: addressRecord(l.to),
      fromAddress: l.from ? addressRecord(l.from) : null,
      delivery: l.delivery,
      color: l.print.color,
      sides: l.print.sides,
      addressPlacement: l.print.addressPlacement,
      pageCount: l.pageCount,
      sizeBytes: l.sizeBytes,
      priceCents: l.priceCents,
      holdId: hold.id,
      pdfKey: l.pdfKey,
      description: l.description,
      payment: l.payment ? paymentRecord(l.payment) : null,
      metadata: l.metadata,
      timeline: [first],
      expectedDeliveryDate: addBusinessDays(now, 1 + TRANSIT_DAYS[zoneOf(l.to.country)]),
      nextStepAt: testMode ? new Date(now.getTime() + simulatedStepMs()) : null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!inserted) throw new Error("letter insert returned nothing");
  await recordAudit(tx, principal, {
    orgId: principal.orgId,
    action: "letter.created",
    resourceType: "letter",
    resourceId: l.id,
    metadata: { priceCents: l.priceCents, pageCount: l.pageCount, testMode, country: l.to.country },
  });
  const entry = await enqueueOutbox(
    tx,
    { orgId: principal.orgId, kind: LETTER_SUBMIT_KIND, subjectId: l.id, payload: { letterId: l.id } },
    l.leaseToken,
  );
  await appendEvents(tx, [statusEvent(inserted, null, first)]);
  const after = testMode ? await publishWorkflowEvents(tx, [letterSimulate.create({ letterId: l.id })]) : null;
  return { row: inserted, entry, after };
}

/**
 * The outbox handler of `letter.submit`: hands a committed letter to the print provider and
 * stores the provider's id. A letter canceled meanwhile (or already submitted) is left alone.
 */
export async function submitLetterEntry(db: Db, entry: OutboxRow, token: string): Promise<void> {
  const letterId = (entry.payload as { letterId?: string }).letterId ?? "";
  const [row] = await db.select().from(letters).where(eq(letters.id, letterId));
  if (!row || row.providerLetterId || isFinal(row.status)) {
    await finishOutbox(db, entry.id, token, { status: "done", error: row ? `letter is ${row.status}` : "letter gone" });
    return;
  }
  let accepted: { providerLetterId: string };
  try {
    accepted = await printProvider().submit({
      letterId: row.id,
      orgId: row.orgId,
      pdfKey: row.pdfKey,
      pageCount: row.pageCount,
      color: row.color,
      sides: row.sides,
      delivery: row.delivery,
      to: row.toAddress,
      from: row.fromAddress,
    });
  } catch (err) {
    if (!(err instanceof PrintRefused)) throw err; // transient: the relay retries with backoff
    // Refused for good: the letter fails with the provider's reason (its hold released, a
    // letter.status_changed emitted) and the entry is finished, never handed over again.
    await db.transaction(async (tx) => {
      if (!(await finishOutbox(tx, entry.id, token, { status: "failed", error: err.message }))) return;
      const [locked] = await tx.select().from(letters).where(eq(letters.id, row.id)).for("update");
      if (!locked || isFinal(locked.status)) return;
      await moveLetter(tx, locked, "failed", `The print provider refused the letter: ${err.message}`);
    });
    log.warn("print provider refused a letter", { letterId: row.id, status: err.status, reason: err.message });
    return;
  }
  await db.transaction(async (tx) => {
    if (!(await finishOutbox(tx, entry.id, token, { status: "done" }))) return;
    await tx.update(letters).set({ providerLetterId: accepted.providerLetterId }).where(eq(letters.id, row.id));
  });
}

async function findLetter(db: DbOrTx, principal: Principal, letterId: string, lock = false): Promise<LetterRow> {
  const q = db
    .select()
    .from(letters)
    .where(and(eq(letters.orgId, principal.orgId), eq(letters.id, letterId)));
  const [row] = lock ? await q.for("update") : await q;
  if (!row) throw notFound("letter", "letterId");
  return row;
}

export async function getLetter(db: DbOrTx, principal: Principal, letterId: string): Promise<Letter> {
  return toLetter(await findLetter(db, principal, letterId));
}

export async function listLetters(
  db: DbOrTx,
  principal: Principal,
  q: { limit: number; cursor?: string; status?: LetterStatus },
) {
  const after = decodeCursor(q.cursor);
  const rows = await db
    .select()
    .from(letters)
    .where(
      and(
        eq(letters.orgId, principal.orgId),
        q.status ? eq(letters.status, q.status) : undefined,
        keysetBefore(letters.createdAt, letters.id, after),
      ),
    )
    .orderBy(sql`${letters.createdAt} desc`, sql`${letters.id} desc`)
    .limit(q.limit + 1);
  const { items, pagination } = toPage(rows, q.limit);
  return { object: "list" as const, data: items.map(toLetter), pagination };
}

const CANCELABLE: readonly LetterStatus[] = ["draft", "queued", "processing"];

export async function cancelLetter(db: Db, principal: Principal, letterId: string): Promise<Letter> {
  const row = await db.transaction(async (tx) => {
    const row = await findLetter(tx, principal, letterId, true);
    if (!CANCELABLE.includes(row.status))
      throw new ApiError(
        "conflict",
        `The letter is ${row.status}: a letter can be canceled until processing ends (queued or processing).`,
        "letterId",
      );
    const moved = await moveLetter(tx, row, "canceled", "Canceled by the sender.");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "letter.canceled",
      resourceType: "letter",
      resourceId: row.id,
      metadata: { previousStatus: row.status },
    });
    return moved;
  });
  if (row.providerLetterId && !row.testMode) await printProvider().cancel(row.providerLetterId);
  return toLetter(row);
}

export async function progressLetter(db: Db, principal: Principal, letterId: string): Promise<Letter> {
  const row = await db.transaction(async (tx) => {
    const row = await findLetter(tx, principal, letterId, true);
    if (!row.testMode)
      throw invalidRequest(
        "Only test letters can be progressed; live letters move with the print provider.",
        "letterId",
      );
    if (isFinal(row.status))
      throw new ApiError("conflict", `The letter is ${row.status}: a final status has no next step.`, "letterId");
    const moved = await advanceLetter(tx, row.id, { force: true });
    if (!moved) throw new ApiError("conflict", `The letter is ${row.status}: it has no next step.`, "letterId");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "letter.progressed",
      resourceType: "letter",
      resourceId: row.id,
      metadata: { from: row.status, to: moved.status },
    });
    return moved;
  });
  return toLetter(row);
}

const seqCursor = (seq: number) => Buffer.from(JSON.stringify({ s: seq })).toString("base64url");
function decodeSeq(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const s = (JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { s?: unknown }).s;
    if (typeof s === "number" && Number.isInteger(s) && s >= 0) return s;
  } catch {
    // falls through to the refusal
  }
  throw invalidRequest("The cursor is not valid; pass a nextCursor value from a previous page.", "cursor");
}

export async function listLetterEvents(
  db: DbOrTx,
  principal: Principal,
  letterId: string,
  q: { limit: number; cursor?: string },
) {
  const row = await findLetter(db, principal, letterId);
  const after = decodeSeq(q.cursor);
  const rows = await db
    .select()
    .from(ledgerEvents)
    .where(
      and(
        eq(ledgerEvents.orgId, principal.orgId),
        eq(ledgerEvents.partitionKey, letterPartition(row.id)),
        gt(ledgerEvents.seq, after),
      ),
    )
    .orderBy(asc(ledgerEvents.seq))
    .limit(q.limit + 1);
  const hasMore = rows.length > q.limit;
  const items = hasMore ? rows.slice(0, q.limit) : rows;
  const last = items[items.length - 1];
  return {
    object: "list" as const,
    data: items.map((e) => {
      const d = e.data as { status?: LetterStatus; previousStatus?: LetterStatus | null; reason?: string | null };
      return {
        object: "letter_event" as const,
        eventId: e.eventId,
        type: e.type,
        seq: e.seq,
        status: d.status ?? "queued",
        previousStatus: d.previousStatus ?? null,
        reason: d.reason ?? null,
        occurredAt: e.occurredAt.toISOString(),
      };
    }),
    pagination: { nextCursor: hasMore && last ? seqCursor(last.seq) : null, hasMore },
  };
}
