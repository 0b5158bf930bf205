import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { inboxSchemas } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/audit/service";
import { notFound } from "@/lib/core/errors";
import { findInbox } from "@/lib/inboxes/service";
import { log } from "@/lib/log";
import { llmConfig } from "@/lib/waits/llm";
import { llmExtract } from "./llm";
import {
  type ExtractionErrorItem,
  type ExtractSource,
  extractDefault,
  type FieldDecl,
  type FlatSchema,
  validateStructured,
} from "./extract";

type SchemaRow = typeof inboxSchemas.$inferSelect;

function toPublic(r: SchemaRow) {
  return {
    object: "inbox_schema" as const,
    inboxId: r.inboxId,
    schema: r.schema,
    onValidationError: r.onValidationError,
    extractionHint: r.extractionHint,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** Shorthand declarations (`"number"`) in their object form, as stored. */
function normalize(schema: Record<string, string | FieldDecl>): FlatSchema {
  return Object.fromEntries(
    Object.entries(schema).map(([k, d]) => [k, typeof d === "string" ? { type: d } : d]),
  ) as FlatSchema;
}

export async function setSchema(
  db: DbOrTx,
  principal: Principal,
  inboxId: string,
  body: {
    schema: Record<string, string | FieldDecl>;
    onValidationError?: "quarantine" | "passthrough";
    extractionHint?: string | null;
  },
) {
  return db.transaction(async (tx) => {
    const inbox = await findInbox(tx, principal, inboxId);
    if (inbox.status === "deleted") throw notFound("inbox", "inboxId");
    const values = {
      schema: normalize(body.schema) as Record<string, unknown>,
      onValidationError: body.onValidationError ?? "quarantine",
      extractionHint: body.extractionHint ?? null,
      updatedAt: new Date(),
    };
    const [row] = await tx
      .insert(inboxSchemas)
      .values({ inboxId: inbox.id, orgId: principal.orgId, ...values })
      .onConflictDoUpdate({ target: inboxSchemas.inboxId, set: values })
      .returning();
    if (!row) throw new Error("schema upsert returned nothing");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "inbox.schema_set",
      resourceType: "inbox",
      resourceId: inbox.id,
      metadata: { fields: Object.keys(values.schema), onValidationError: values.onValidationError },
    });
    return toPublic(row);
  });
}

async function findSchema(db: DbOrTx, principal: Principal, inboxId: string): Promise<SchemaRow> {
  const inbox = await findInbox(db, principal, inboxId);
  const [row] = await db.select().from(inboxSchemas).where(eq(inboxSchemas.inboxId, inbox.id));
  if (!row) throw notFound("schema", "inboxId");
  return row;
}

export async function getSchema(db: DbOrTx, principal: Principal, inboxId: string) {
  return toPublic(await findSchema(db, principal, inboxId));
}

export async function deleteSchema(db: DbOrTx, principal: Principal, inboxId: string) {
  return db.transaction(async (tx) => {
    const row = await findSchema(tx, principal, inboxId);
    await tx.delete(inboxSchemas).where(eq(inboxSchemas.inboxId, row.inboxId));
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "inbox.schema_deleted",
      resourceType: "inbox",
      resourceId: row.inboxId,
    });
    return { object: "inbox_schema" as const, inboxId: row.inboxId, deleted: true as const };
  });
}

export interface Extraction {
  structured: Record<string, unknown> | null;
  extractionStatus: "validated" | "quarantined" | "passthrough" | "error";
  extractionErrors: ExtractionErrorItem[] | null;
}

/** What an extraction runs with: the stored row's fields, or a draft's (the console's test pane). */
export interface SchemaDef {
  schema: FlatSchema;
  onValidationError: "quarantine" | "passthrough";
  extractionHint: string | null;
}

/**
 * One extraction: the LLM extractor when `LLM_BASE_URL` is set, else the default; validated with
 * ajv; a failure's outcome by the policy. Never throws (a failed extraction is `error`).
 */
export async function runExtraction(def: SchemaDef, source: ExtractSource, inboxId: string): Promise<Extraction> {
  try {
    const llm = llmConfig();
    const structured = llm
      ? await llmExtract(llm, def.schema, def.extractionHint, source)
      : extractDefault(def.schema, source);
    const errors = validateStructured(def.schema, structured);
    if (errors.length === 0) return { structured, extractionStatus: "validated", extractionErrors: null };
    return {
      structured,
      extractionStatus: def.onValidationError === "passthrough" ? "passthrough" : "quarantined",
      extractionErrors: errors,
    };
  } catch (err) {
    log.warn("extraction failed", { inboxId, error: String(err) });
    return {
      structured: null,
      extractionStatus: "error",
      extractionErrors: [{ field: "", message: "extraction failed" }],
    };
  }
}

/** The inbox's schema, or null when it has none. */
export async function schemaDefOf(db: DbOrTx, inboxId: string): Promise<SchemaDef | null> {
  const [row] = await db.select().from(inboxSchemas).where(eq(inboxSchemas.inboxId, inboxId));
  return row
    ? { schema: row.schema as FlatSchema, onValidationError: row.onValidationError, extractionHint: row.extractionHint }
    : null;
}

/**
 * Called by `storeMessage` for an inbound message before it is inserted when no LLM is configured
 * (the default extractor runs in the process): null when the inbox has no schema; else the
 * extraction, validated, and the outcome its policy gives a failure. With an LLM the extraction
 * runs after the commit instead (lib/messages/extraction.ts).
 */
export async function extractFor(tx: DbOrTx, inboxId: string, source: ExtractSource): Promise<Extraction | null> {
  const def = await schemaDefOf(tx, inboxId);
  return def ? runExtraction(def, source, inboxId) : null;
}

/**
 * `POST /v1/inboxes/{inboxId}/schema/test` (the console's test pane): runs the extraction a message
 * with this text would get — under the given draft schema, else the stored one — through the same
 * `runExtraction` as `storeMessage`, and stores nothing.
 */
export async function testSchema(
  db: DbOrTx,
  principal: Principal,
  inboxId: string,
  body: {
    schema?: Record<string, string | FieldDecl>;
    onValidationError?: "quarantine" | "passthrough";
    extractionHint?: string | null;
    text?: string;
    html?: string;
  },
) {
  const inbox = await findInbox(db, principal, inboxId);
  if (inbox.status === "deleted") throw notFound("inbox", "inboxId");
  let def: SchemaDef;
  if (body.schema) {
    def = {
      schema: normalize(body.schema),
      onValidationError: body.onValidationError ?? "quarantine",
      extractionHint: body.extractionHint ?? null,
    };
  } else {
    const [row] = await db.select().from(inboxSchemas).where(eq(inboxSchemas.inboxId, inbox.id));
    if (!row) throw notFound("schema", "inboxId");
    def = {
      schema: row.schema as FlatSchema,
      onValidationError: body.onValidationError ?? row.onValidationError,
      extractionHint: body.extractionHint === undefined ? row.extractionHint : body.extractionHint,
    };
  }
  const result = await runExtraction(def, { text: body.text ?? null, html: body.html ?? null, files: [] }, inbox.id);
  return { object: "extraction_test" as const, inboxId: inbox.id, ...result };
}
