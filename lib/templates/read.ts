import { and, desc, eq, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { templates, templateVersions } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { findTemplate, findVersion, toTemplate, toVersion } from "./template";

export async function listTemplates(
  db: DbOrTx,
  principal: Principal,
  query: { limit: number; cursor?: string; status?: "active" | "archived" },
) {
  const after = decodeCursor(query.cursor);
  const conditions: (SQL | undefined)[] = [
    eq(templates.orgId, principal.orgId),
    keysetBefore(templates.createdAt, templates.id, after),
  ];
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

export async function getTemplate(db: DbOrTx, principal: Principal, idOrSlug: string) {
  const row = await findTemplate(db, principal.orgId, idOrSlug);
  return { template: toTemplate(row), version: toVersion(await findVersion(db, row, row.currentVersion, "idOrSlug")) };
}

export async function listTemplateVersions(db: DbOrTx, principal: Principal, idOrSlug: string) {
  const row = await findTemplate(db, principal.orgId, idOrSlug);
  const rows = await db
    .select({
      version: templateVersions.version,
      variables: templateVersions.variables,
      createdAt: templateVersions.createdAt,
      subject: templateVersions.subject,
      notes: templateVersions.notes,
    })
    .from(templateVersions)
    .where(eq(templateVersions.templateId, row.id))
    .orderBy(desc(templateVersions.version));
  return {
    templateId: row.id,
    versions: rows.map((v) => ({ ...v, variables: v.variables ?? null, createdAt: v.createdAt.toISOString() })),
  };
}

export async function getTemplateVersion(db: DbOrTx, principal: Principal, idOrSlug: string, version: number) {
  const row = await findTemplate(db, principal.orgId, idOrSlug);
  return { version: toVersion(await findVersion(db, row, version, "version")) };
}
