import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { templates } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { ApiError, invalidRequest, uniqueViolation } from "@/lib/core/errors";
import { findTemplate, type TemplateRow, toTemplate } from "./template";

export async function updateTemplate(
  db: DbOrTx,
  principal: Principal,
  idOrSlug: string,
  input: { name?: string; slug?: string; currentVersion?: number; archived?: boolean },
) {
  try {
    return await db.transaction(async (tx) => {
      const row = await findTemplate(tx, principal.orgId, idOrSlug, { lock: true });
      if (input.currentVersion !== undefined && input.currentVersion > row.latestVersion) {
        throw invalidRequest(
          `The template has versions 1 to ${row.latestVersion}; version ${input.currentVersion} does not exist.`,
          "currentVersion",
        );
      }
      const archive =
        input.archived === undefined
          ? {}
          : input.archived
            ? { status: "archived" as const, archivedAt: row.archivedAt ?? new Date() }
            : { status: "active" as const, archivedAt: null };
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
      await recordAudit(tx, principal, {
        orgId: principal.orgId,
        action: "template.updated",
        resourceType: "template",
        resourceId: row.id,
        metadata: { changes, previousVersion: row.currentVersion },
      });
      return { template: toTemplate(updated as TemplateRow) };
    });
  } catch (err) {
    if (uniqueViolation(err) !== null)
      throw new ApiError("conflict", `A template with the slug "${input.slug}" already exists.`, "slug");
    throw err;
  }
}

export async function archiveTemplate(db: DbOrTx, principal: Principal, idOrSlug: string) {
  return updateTemplate(db, principal, idOrSlug, { archived: true });
}
