import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { organizations } from "./organizations";

export const LETTER_STATUSES = [
  "draft",
  "queued",
  "processing",
  "printable",
  "submitted",
  "in_transit",
  "delivered",
  "undeliverable",
  "canceled",
  "failed",
] as const;
export type LetterStatusValue = (typeof LETTER_STATUSES)[number];

/** One entry of a letter's status timeline. */
export interface LetterTimelineEntry {
  status: LetterStatusValue;
  at: string;
  reason: string | null;
}

/**
 * A physical letter (lib/letters): its verified PDF in storage (`pdf_key`), the price held under
 * the account budget (`hold_id`, a `spend_holds` row), the print provider's id for it, and its
 * status timeline. Test letters (the simulated print centre) carry `next_step_at`, the durable clock
 * the simulator and the sweeper move them on; null once final (or for live letters).
 */
export const letters = pgTable(
  "letters",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    status: text({ enum: LETTER_STATUSES }).notNull(),
    testMode: boolean().notNull(),
    provider: text().notNull(),
    providerLetterId: text(),
    toAddress: jsonb().$type<Record<string, string | null>>().notNull(),
    fromAddress: jsonb().$type<Record<string, string | null>>(),
    delivery: text({ enum: ["standard", "registered"] }).notNull(),
    color: boolean().notNull(),
    sides: text({ enum: ["simplex", "duplex"] }).notNull(),
    addressPlacement: text({ enum: ["left", "right"] }).notNull(),
    pageCount: integer().notNull(),
    sizeBytes: integer().notNull(),
    priceCents: integer().notNull(),
    holdId: uuid(),
    pdfKey: text().notNull(),
    description: text(),
    /** The payment slip printed as the last page (lib/letters/payment.ts), as the letter answers it. */
    payment: jsonb().$type<Record<string, unknown>>(),
    metadata: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    timeline: jsonb().$type<LetterTimelineEntry[]>().notNull(),
    expectedDeliveryDate: text().notNull(),
    nextStepAt: tstz(),
    failureReason: text(),
    createdAt: createdAt(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    index("letters_org_idx").on(t.orgId, t.createdAt, t.id),
    index("letters_next_step_idx").on(t.nextStepAt).where(sql`${t.nextStepAt} is not null`),
    index("letters_provider_letter_idx").on(t.provider, t.providerLetterId),
  ],
);

/** One variable of a letter template (`{{name}}` in its HTML). */
export interface LetterTemplateVariableValue {
  name: string;
  type?: string;
  example?: string;
  label?: string;
}

/**
 * An HTML letter template (lib/letters/templates.ts): `{{placeholders}}` filled (escaped) from
 * `to`, `from` and `templateData`, rendered to PDF by headless Chromium, then verified like any PDF.
 * `variables` is stored as objects (names and name-to-type maps are converted on write; any other
 * stored form is converted on read).
 */
export const letterTemplates = pgTable(
  "letter_templates",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    html: text().notNull(),
    variables: jsonb().$type<unknown>().notNull().default([]),
    status: text({ enum: ["active", "archived"] })
      .notNull()
      .default("active"),
    createdAt: createdAt(),
    updatedAt: tstz(),
  },
  (t) => [index("letter_templates_org_idx").on(t.orgId, t.createdAt, t.id)],
);

/** A batch item's failure, as the API reports it. */
export interface LetterBatchItemError {
  code: string;
  message: string;
  param: string | null;
}

/**
 * A letter batch (`POST /v1/letters/batch`, lib/letters/batch.ts): one template, up to 1,000
 * recipients, applied by the `letter_batch` fan-out (`fanout_id`). `request` keeps what every
 * letter shares (`from`, `print`, `delivery`, `maxPages`, `description`, `metadata`).
 */
export const letterBatches = pgTable(
  "letter_batches",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    templateId: uuid().notNull(),
    request: jsonb().$type<Record<string, unknown>>().notNull(),
    total: integer().notNull(),
    fanoutId: uuid(),
    createdAt: createdAt(),
  },
  (t) => [index("letter_batches_org_idx").on(t.orgId, t.createdAt, t.id)],
);

/**
 * One recipient of a batch, by its position in the request. `letter_id` is assigned when the batch
 * is stored, so the letter made for it (and its stored PDF) has one id however often its chunk is
 * retried: at most one letter per recipient. `pending` until its chunk is applied, then `created`
 * or `failed` with `error`.
 */
export const letterBatchItems = pgTable(
  "letter_batch_items",
  {
    batchId: uuid()
      .notNull()
      .references(() => letterBatches.id, { onDelete: "cascade" }),
    position: integer().notNull(),
    letterId: uuid().notNull(),
    toAddress: jsonb().$type<Record<string, string | null>>().notNull(),
    templateData: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    /** This recipient's payment slip (lib/letters/payment.ts), or null. */
    payment: jsonb().$type<Record<string, unknown>>(),
    status: text({ enum: ["pending", "created", "failed"] })
      .notNull()
      .default("pending"),
    error: jsonb().$type<LetterBatchItemError>(),
  },
  (t) => [primaryKey({ columns: [t.batchId, t.position] })],
);
