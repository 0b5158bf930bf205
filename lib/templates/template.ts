import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { templates, templateVersions } from "@/db/schema";
import { ApiError, invalidRequest, notFound } from "@/lib/core/errors";
import { compileTemplate } from "./render/compile";
import { TemplateError } from "./render/errors";
import { parseSubjectTemplate } from "./render/subject";
import { parseVariableSchema, type RootVariableSchema } from "./render/variables";
import { isUuid } from "@/lib/core/schemas";

export type TemplateRow = typeof templates.$inferSelect;

export type VersionRow = typeof templateVersions.$inferSelect;

export function toTemplate(row: TemplateRow) {
  return {
    object: "template" as const,
    id: row.id,
    name: row.name,
    slug: row.slug,
    status: row.status,
    currentVersion: row.currentVersion,
    latestVersion: row.latestVersion,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    archivedAt: row.archivedAt?.toISOString() ?? null,
  };
}

export function toVersion(row: VersionRow) {
  return {
    object: "template_version" as const,
    templateId: row.templateId,
    version: row.version,
    source: row.source,
    subject: row.subject,
    variables: (row.variables ?? null) as Record<string, unknown> | null,
    notes: row.notes,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * A renderer problem the caller caused is a 400 naming the field; an organization over its share of
 * the renderer is a 429 with Retry-After; anything else stays a bug (500).
 */
export function templateFailure(err: unknown, param?: string | null): never {
  if (err instanceof TemplateError && err.code === "rate_limited") {
    throw new ApiError("rate_limited", err.message).withHeaders({ "Retry-After": String(err.retryAfterSeconds ?? 1) });
  }
  if (err instanceof TemplateError && err.isClientError)
    throw invalidRequest(err.message, param === undefined ? err.param : param);
  throw err;
}

/** A slug from a name: `Order Shipped!` → `order-shipped`. */
export function slugify(name: string): string {
  const s = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/g, "");
  return s || "template";
}

/** The organization's template by id or slug (404 `idOrSlug` otherwise); `lock` takes its row lock. */
export async function findTemplate(
  db: DbOrTx,
  orgId: string,
  idOrSlug: string,
  opts: { lock?: boolean; param?: string } = {},
): Promise<TemplateRow> {
  const where = and(
    eq(templates.orgId, orgId),
    isUuid(idOrSlug) ? eq(templates.id, idOrSlug.toLowerCase()) : eq(templates.slug, idOrSlug),
  );
  const q = db.select().from(templates).where(where).limit(1);
  const [row] = opts.lock ? await q.for("update") : await q;
  if (!row) throw notFound("template", opts.param ?? "idOrSlug");
  return row;
}

export async function findVersion(
  db: DbOrTx,
  template: TemplateRow,
  version: number,
  param: string,
): Promise<VersionRow> {
  const [row] = await db
    .select()
    .from(templateVersions)
    .where(and(eq(templateVersions.templateId, template.id), eq(templateVersions.version, version)))
    .limit(1);
  if (!row) throw notFound("template version", param);
  return row;
}

export interface VersionInput {
  source: string;
  subject?: string;
  variables?: Record<string, unknown> | null;
  notes?: string;
}

/** Checks a version before it is stored: the variable schema, the subject template, and that the source compiles. */
export async function checkVersion(input: VersionInput): Promise<{ variables: RootVariableSchema | null }> {
  try {
    const variables = parseVariableSchema(input.variables ?? null, "variables");
    if (input.subject !== undefined) parseSubjectTemplate(input.subject, "subject");
    await compileTemplate(input.source);
    return { variables };
  } catch (err) {
    // Compile errors carry no param of their own: they are the source's.
    return templateFailure(err, err instanceof TemplateError && err.param === null ? "source" : undefined);
  }
}

export const versionValues = (
  template: TemplateRow,
  version: number,
  input: VersionInput,
  variables: RootVariableSchema | null,
) => ({
  templateId: template.id,
  orgId: template.orgId,
  version,
  source: input.source,
  subject: input.subject ?? null,
  variables,
  notes: input.notes ?? null,
});
