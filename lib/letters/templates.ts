import { and, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { type LetterTemplateVariableValue, letterTemplates } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { ApiError, invalidRequest, notFound } from "@/lib/core/errors";
import { RenderUnavailable, renderHtmlToPdf } from "@/lib/providers/print/render";
import { storage } from "@/lib/providers/storage";
import { uuidv7 } from "@/db/ids";
import type { PostalAddress, PrintOptions } from "./contracts";
import type { Delivery } from "./geometry";
import { type Payment, withPaymentSlip } from "./payment";
import { PREVIEW_URL_SECONDS, previewPdfKey } from "./pdf-storage";
import { verifyPdf } from "./verify";

/**
 * HTML letter templates: CRUD, `{{placeholders}}` filled (HTML-escaped) from `to.*`, `from.*` and
 * `templateData`, rendered to PDF by the warm Chromium (lib/providers/print/render.ts), previewed
 * with the same checks a send runs.
 */

export type TemplateRow = typeof letterTemplates.$inferSelect;
export type VariablesInput = (LetterTemplateVariableValue | string)[] | Record<string, string>;

/** Variables as objects, whatever form they were stored in (objects, names, a name-to-type map). */
export function variablesOf(stored: unknown): LetterTemplateVariableValue[] {
  if (Array.isArray(stored))
    return stored.flatMap((v) =>
      typeof v === "string"
        ? [{ name: v }]
        : v && typeof v === "object" && typeof (v as { name?: unknown }).name === "string"
          ? [v as LetterTemplateVariableValue]
          : [],
    );
  if (stored && typeof stored === "object")
    return Object.entries(stored as Record<string, unknown>).map(([name, type]) =>
      typeof type === "string" ? { name, type } : { name },
    );
  return [];
}

function toTemplate(r: TemplateRow, withHtml: boolean) {
  return {
    object: "letter_template" as const,
    id: r.id,
    name: r.name,
    status: r.status,
    ...(withHtml ? { html: r.html } : {}),
    variables: variablesOf(r.variables),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt?.toISOString() ?? null,
  };
}

export async function findTemplate(db: DbOrTx, principal: Principal, templateId: string, param = "templateId") {
  const [row] = await db
    .select()
    .from(letterTemplates)
    .where(and(eq(letterTemplates.orgId, principal.orgId), eq(letterTemplates.id, templateId)));
  if (!row) throw notFound("letter template", param);
  return row;
}

export async function listTemplates(db: DbOrTx, principal: Principal) {
  const rows = await db
    .select()
    .from(letterTemplates)
    .where(eq(letterTemplates.orgId, principal.orgId))
    .orderBy(sql`${letterTemplates.createdAt} desc`, sql`${letterTemplates.id} desc`)
    .limit(100);
  return {
    object: "list" as const,
    data: rows.map((r) => toTemplate(r, false)),
    pagination: { nextCursor: null, hasMore: false },
  };
}

export async function getTemplate(db: DbOrTx, principal: Principal, templateId: string) {
  return toTemplate(await findTemplate(db, principal, templateId), true);
}

export async function createTemplate(
  db: Db,
  principal: Principal,
  body: { name: string; html: string; variables?: VariablesInput },
) {
  const row = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(letterTemplates)
      .values({
        orgId: principal.orgId,
        name: body.name,
        html: body.html,
        variables: variablesOf(body.variables ?? []),
      })
      .returning();
    if (!row) throw new Error("letter template insert returned nothing");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "letter_template.created",
      resourceType: "letter_template",
      resourceId: row.id,
      metadata: { name: row.name },
    });
    return row;
  });
  return toTemplate(row, true);
}

export async function updateTemplate(
  db: Db,
  principal: Principal,
  templateId: string,
  body: { name?: string; html?: string; variables?: VariablesInput; status?: "active" | "archived" },
) {
  const row = await db.transaction(async (tx) => {
    await findTemplate(tx, principal, templateId);
    const [row] = await tx
      .update(letterTemplates)
      .set({
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.html !== undefined ? { html: body.html } : {}),
        ...(body.variables !== undefined ? { variables: variablesOf(body.variables) } : {}),
        ...(body.status !== undefined ? { status: body.status } : {}),
        updatedAt: new Date(),
      })
      .where(eq(letterTemplates.id, templateId))
      .returning();
    if (!row) throw new Error("letter template update returned nothing");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "letter_template.updated",
      resourceType: "letter_template",
      resourceId: row.id,
      metadata: { fields: Object.keys(body) },
    });
    return row;
  });
  return toTemplate(row, true);
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/** Fills `{{name}}` / `{{to.city}}` placeholders, HTML-escaped; unknown names become empty. */
export function fillPlaceholders(html: string, values: Record<string, unknown>): string {
  return html.replace(/\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g, (_m, path: string) => {
    let v: unknown = values;
    for (const part of path.split("."))
      v = v && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined;
    return v === undefined || v === null ? "" : escapeHtml(typeof v === "string" ? v : JSON.stringify(v));
  });
}

/** Renders a template of the organization to PDF bytes (archived templates are refused). */
export async function renderTemplate(
  db: DbOrTx,
  principal: Principal,
  input: {
    templateId: string;
    to?: PostalAddress | null;
    from?: PostalAddress | null;
    templateData?: Record<string, unknown>;
    payment?: Payment | null;
  },
): Promise<Uint8Array> {
  return renderTemplateRow(await usableTemplate(db, principal, input.templateId), input);
}

/** The organization's template, refused when archived (404 when it is not the organization's). */
export async function usableTemplate(db: DbOrTx, principal: Principal, templateId: string): Promise<TemplateRow> {
  const row = await findTemplate(db, principal, templateId);
  if (row.status === "archived")
    throw invalidRequest("The template is archived; make it active to use it.", "templateId");
  return row;
}

/** Renders a template already read (`usableTemplate`): a batch reads it once for all its letters. */
export async function renderTemplateRow(
  row: TemplateRow,
  input: {
    to?: PostalAddress | null;
    from?: PostalAddress | null;
    templateData?: Record<string, unknown>;
    payment?: Payment | null;
  },
): Promise<Uint8Array> {
  const html = fillPlaceholders(row.html, {
    ...(input.templateData ?? {}),
    to: input.to ?? {},
    from: input.from ?? {},
  });
  try {
    return await withPaymentSlip(await renderHtmlToPdf(html), input.payment, renderHtmlToPdf);
  } catch (err) {
    if (err instanceof RenderUnavailable) throw new ApiError("provider_unavailable", err.message, "templateId");
    throw err;
  }
}

export async function previewTemplate(
  db: DbOrTx,
  principal: Principal,
  templateId: string,
  body: {
    templateData?: Record<string, unknown>;
    to?: PostalAddress;
    from?: PostalAddress;
    addressPlacement: "left" | "right";
    output: "inline" | "url";
    delivery: Delivery;
    payment?: Payment;
  },
) {
  const bytes = await renderTemplate(db, principal, { templateId, ...body });
  const print: PrintOptions = { color: false, sides: "simplex", addressPlacement: body.addressPlacement };
  const { verification } = await verifyPdf({
    bytes,
    sourceParam: "templateId",
    to: body.to,
    print,
    delivery: body.delivery,
    payment: body.payment,
  });
  const common = {
    object: "letter_template_preview" as const,
    templateId,
    addressPlacement: body.addressPlacement,
    pageCount: verification.pageCount,
    pageSize: verification.pageSize,
    valid: verification.valid,
    summary: verification.summary,
    failedChecks: verification.failedChecks,
    checks: verification.checks,
    sizeBytes: bytes.length,
    agentHint: verification.agentHint,
  };
  if (body.output === "inline") return { ...common, pdfBase64: Buffer.from(bytes).toString("base64") };
  const key = previewPdfKey(principal.orgId, uuidv7());
  await storage().put(key, bytes, { contentType: "application/pdf" });
  const url = await storage().presignGet({
    key,
    expiresInSeconds: PREVIEW_URL_SECONDS,
    filename: "preview.pdf",
    contentType: "application/pdf",
    disposition: "inline",
  });
  return { ...common, pdfUrl: url.url, pdfUrlExpiresInSeconds: PREVIEW_URL_SECONDS };
}
