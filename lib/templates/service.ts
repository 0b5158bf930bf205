import { and, desc, eq, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { templates, templateVersions } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { ApiError, invalidRequest, notFound, uniqueViolation } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { compileTemplate } from "./render/compile";
import { TemplateError } from "./render/errors";
import { renderReact } from "./render/index";
import { parseSubjectTemplate, renderSubject } from "./render/subject";
import { parseVariableSchema, type RootVariableSchema, validateVariables } from "./render/variables";
import { isUuid } from "@/lib/core/schemas";

type TemplateRow = typeof templates.$inferSelect;
type VersionRow = typeof templateVersions.$inferSelect;


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

/** A renderer problem the caller caused is a 400 naming the field; anything else stays a bug (500). */
export function templateFailure(err: unknown, param?: string | null): never {
  if (err instanceof TemplateError && err.isClientError) throw invalidRequest(err.message, param === undefined ? err.param : param);
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
export async function findTemplate(db: DbOrTx, orgId: string, idOrSlug: string, opts: { lock?: boolean; param?: string } = {}): Promise<TemplateRow> {
  const where = and(eq(templates.orgId, orgId), isUuid(idOrSlug) ? eq(templates.id, idOrSlug.toLowerCase()) : eq(templates.slug, idOrSlug));
  const q = db.select().from(templates).where(where).limit(1);
  const [row] = opts.lock ? await q.for("update") : await q;
  if (!row) throw notFound("template", opts.param ?? "idOrSlug");
  return row;
}

async function findVersion(db: DbOrTx, template: TemplateRow, version: number, param: string): Promise<VersionRow> {
  const [row] = await db
    .select()
    .from(templateVersions)
    .where(and(eq(templateVersions.templateId, template.id), eq(templateVersions.version, version)))
    .limit(1);
  if (!row) throw notFound("template version", param);
  return row;
}

interface VersionInput {
  source: string;
  subject?: string;
  variables?: Record<string, unknown> | null;
  notes?: string;
}

/** Checks a version before it is stored: the variable schema, the subject template, and that the source compiles. */
async function checkVersion(input: VersionInput): Promise<{ variables: RootVariableSchema | null }> {
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

const versionValues = (template: TemplateRow, version: number, input: VersionInput, variables: RootVariableSchema | null) => ({
  templateId: template.id,
  orgId: template.orgId,
  version,
  source: input.source,
  subject: input.subject ?? null,
  variables,
  notes: input.notes ?? null,
});

export async function listTemplates(db: DbOrTx, principal: Principal, query: { limit: number; cursor?: string; status?: "active" | "archived" }) {
  const after = decodeCursor(query.cursor);
  const conditions: (SQL | undefined)[] = [eq(templates.orgId, principal.orgId), keysetBefore(templates.createdAt, templates.id, after)];
  if (query.status) conditions.push(eq(templates.status, query.status));
  const rows = await db
    .select()
    .from(templates)
    .where(and(...conditions))
    .orderBy(desc(templates.createdAt), desc(templates.id))
    .limit(query.limit + 1);
  const { items, pagination } = toPage(rows, query.limit);
  return { templates: items.map(toTemplate), pagination };
}

export async function createTemplate(db: DbOrTx, principal: Principal, input: VersionInput & { name: string; slug?: string }) {
  const { variables } = await checkVersion(input);
  const explicit = input.slug !== undefined;
  const base = input.slug ?? slugify(input.name);
  // A derived slug that is taken gets a short suffix; an explicit one is the caller's to choose (409).
  const candidates = explicit ? [base] : [base, `${base.slice(0, 57)}-${Math.random().toString(36).slice(2, 8)}`];
  for (const slug of candidates) {
    try {
      return await db.transaction(async (tx) => {
        const [row] = await tx
          .insert(templates)
          .values({ orgId: principal.orgId, name: input.name, slug, currentVersion: 1, latestVersion: 1 })
          .onConflictDoNothing()
          .returning();
        if (!row) throw new ApiError("conflict", `A template with the slug "${slug}" already exists.`, "slug");
        const [version] = await tx.insert(templateVersions).values(versionValues(row, 1, input, variables)).returning();
        await recordAudit(tx, principal, { orgId: principal.orgId, action: "template.created", resourceType: "template", resourceId: row.id, metadata: { slug, version: 1 } });
        return { template: toTemplate(row), version: toVersion(version as VersionRow) };
      });
    } catch (err) {
      if (explicit || !(err instanceof ApiError && err.code === "conflict") || slug !== candidates[0]) throw err;
    }
  }
  throw new Error("unreachable");
}

export async function getTemplate(db: DbOrTx, principal: Principal, idOrSlug: string) {
  const row = await findTemplate(db, principal.orgId, idOrSlug);
  return { template: toTemplate(row), version: toVersion(await findVersion(db, row, row.currentVersion, "idOrSlug")) };
}

export async function updateTemplate(db: DbOrTx, principal: Principal, idOrSlug: string, input: { name?: string; slug?: string; currentVersion?: number; archived?: boolean }) {
  try {
    return await db.transaction(async (tx) => {
      const row = await findTemplate(tx, principal.orgId, idOrSlug, { lock: true });
      if (input.currentVersion !== undefined && input.currentVersion > row.latestVersion) {
        throw invalidRequest(`The template has versions 1 to ${row.latestVersion}; version ${input.currentVersion} does not exist.`, "currentVersion");
      }
      const archive = input.archived === undefined ? {} : input.archived ? { status: "archived" as const, archivedAt: row.archivedAt ?? new Date() } : { status: "active" as const, archivedAt: null };
      const [updated] = await tx
        .update(templates)
        .set({
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.slug !== undefined ? { slug: input.slug } : {}),
          ...(input.currentVersion !== undefined ? { currentVersion: input.currentVersion } : {}),
          ...archive,
          updatedAt: new Date(),
        })
        .where(eq(templates.id, row.id))
        .returning();
      const changes = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
      await recordAudit(tx, principal, { orgId: principal.orgId, action: "template.updated", resourceType: "template", resourceId: row.id, metadata: { changes, previousVersion: row.currentVersion } });
      return { template: toTemplate(updated as TemplateRow) };
    });
  } catch (err) {
    if (uniqueViolation(err) !== null) throw new ApiError("conflict", `A template with the slug "${input.slug}" already exists.`, "slug");
    throw err;
  }
}

export async function archiveTemplate(db: DbOrTx, principal: Principal, idOrSlug: string) {
  return updateTemplate(db, principal, idOrSlug, { archived: true });
}

export async function listTemplateVersions(db: DbOrTx, principal: Principal, idOrSlug: string) {
  const row = await findTemplate(db, principal.orgId, idOrSlug);
  const rows = await db
    .select({ version: templateVersions.version, variables: templateVersions.variables, createdAt: templateVersions.createdAt, subject: templateVersions.subject, notes: templateVersions.notes })
    .from(templateVersions)
    .where(eq(templateVersions.templateId, row.id))
    .orderBy(desc(templateVersions.version));
  return { templateId: row.id, versions: rows.map((v) => ({ ...v, variables: (v.variables ?? null), createdAt: v.createdAt.toISOString() })) };
}

export async function publishTemplateVersion(db: DbOrTx, principal: Principal, idOrSlug: string, input: VersionInput & { makeCurrent: boolean }) {
  const { variables } = await checkVersion(input);
  return db.transaction(async (tx) => {
    const row = await findTemplate(tx, principal.orgId, idOrSlug, { lock: true });
    if (row.status === "archived") throw new ApiError("conflict", "The template is archived: restore it (PATCH with archived: false) before publishing.", "idOrSlug");
    const next = row.latestVersion + 1;
    const [version] = await tx.insert(templateVersions).values(versionValues(row, next, input, variables)).returning();
    const [updated] = await tx
      .update(templates)
      .set({ latestVersion: next, ...(input.makeCurrent ? { currentVersion: next } : {}), updatedAt: new Date() })
      .where(eq(templates.id, row.id))
      .returning();
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "template.version_published", resourceType: "template", resourceId: row.id, metadata: { version: next, makeCurrent: input.makeCurrent } });
    return { template: toTemplate(updated as TemplateRow), version: toVersion(version as VersionRow) };
  });
}

export async function getTemplateVersion(db: DbOrTx, principal: Principal, idOrSlug: string, version: number) {
  const row = await findTemplate(db, principal.orgId, idOrSlug);
  return { version: toVersion(await findVersion(db, row, version, "version")) };
}

export interface RenderedTemplate {
  templateId: string;
  version: number;
  subject: string | null;
  html: string;
  text: string | null;
}

/**
 * Renders a version with variables, as a send and a preview both do: the version is the one given,
 * else the template's current one (an archived template needs an explicit version); variables are
 * validated against the version's schema (defaults filled in), the subject template is filled
 * unless `subject` is given, and the source runs in the sandbox. `param` is where the request put
 * the template (`template` in a send, "" in a preview): errors name `template.variables.name` or
 * `variables.name`.
 */
export async function renderVersion(
  db: DbOrTx,
  orgId: string,
  ref: { idOrSlug: string; version?: number; variables?: Record<string, unknown>; subject?: string },
  param = "",
): Promise<RenderedTemplate> {
  const field = (name: string) => (param ? `${param}.${name}` : name);
  const row = await findTemplate(db, orgId, ref.idOrSlug, { param: param ? field("id") : "idOrSlug" });
  if (ref.version === undefined && row.status === "archived") {
    throw invalidRequest("The template is archived: name an explicit version to send it.", field("version"));
  }
  const v = await findVersion(db, row, ref.version ?? row.currentVersion, field("version"));
  let props: Record<string, unknown>;
  try {
    props = validateVariables(v.variables ?? null, ref.variables ?? {}, field("variables"));
  } catch (err) {
    return templateFailure(err);
  }
  const subject = ref.subject ?? (v.subject ? renderSubject(v.subject, props) : null);
  try {
    const out = await renderReact({ tenant: `org:${orgId}`, source: v.source, props, param: param || undefined });
    return { templateId: row.id, version: v.version, subject, html: out.html, text: out.text };
  } catch (err) {
    // The stored source failed with these variables: the caller's variables (or the version) are at fault.
    return templateFailure(err, field("variables"));
  }
}

/** An unpublished version, rendered by a preview (the console editor) and never stored. */
interface DraftInput {
  source: string;
  subject?: string;
  variables?: Record<string, unknown> | null;
}

/**
 * Renders a draft of the template's next version with the same checks as publishing (schema,
 * subject template, compile) and the same sandbox as a send. Errors name `draft.source`,
 * `draft.subject`, `draft.variables…` or the preview's own `variables.name`.
 */
async function renderDraft(db: DbOrTx, orgId: string, idOrSlug: string, draft: DraftInput, input: { variables?: Record<string, unknown>; subject?: string }): Promise<RenderedTemplate> {
  const row = await findTemplate(db, orgId, idOrSlug);
  let schema: RootVariableSchema | null;
  let props: Record<string, unknown>;
  try {
    schema = parseVariableSchema(draft.variables ?? null, "draft.variables");
    if (draft.subject !== undefined) parseSubjectTemplate(draft.subject, "draft.subject");
    props = validateVariables(schema, input.variables ?? {}, "variables");
  } catch (err) {
    return templateFailure(err);
  }
  const subject = input.subject ?? (draft.subject ? renderSubject(draft.subject, props) : null);
  try {
    const out = await renderReact({ tenant: `org:${orgId}`, source: draft.source, props, param: "draft" });
    return { templateId: row.id, version: row.latestVersion + 1, subject, html: out.html, text: out.text };
  } catch (err) {
    return templateFailure(err);
  }
}

export async function renderTemplate(
  db: DbOrTx,
  principal: Principal,
  idOrSlug: string,
  input: { version?: number; variables?: Record<string, unknown>; subject?: string; draft?: DraftInput },
) {
  const { draft, ...rest } = input;
  if (draft) {
    if (rest.version !== undefined) throw invalidRequest("Give either version or draft, not both.", "version");
    return renderDraft(db, principal.orgId, idOrSlug, draft, rest);
  }
  return renderVersion(db, principal.orgId, { idOrSlug, ...rest });
}
