import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { templates, templateVersions } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { ApiError } from "@/lib/core/errors";
import {
  checkVersion,
  findTemplate,
  type TemplateRow,
  toTemplate,
  toVersion,
  type VersionInput,
  type VersionRow,
  versionValues,
} from "./template";

export async function publishTemplateVersion(
  db: DbOrTx,
  principal: Principal,
  idOrSlug: string,
  input: VersionInput & { makeCurrent: boolean },
) {
  const { variables } = await checkVersion(input);
  return db.transaction(async (tx) => {
    const row = await findTemplate(tx, principal.orgId, idOrSlug, { lock: true });
    if (row.status === "archived")
      throw new ApiError(
        "conflict",
        "The template is archived: restore it (PATCH with archived: false) before publishing.",
        "idOrSlug",
      );
    const next = row.latestVersion + 1;
    const [version] = await tx
      .insert(templateVersions)
      .values(versionValues(row, next, input, variables))
      .returning();
    const [updated] = await tx
      .update(templates)
      .set({ latestVersion: next, ...(input.makeCurrent ? { currentVersion: next } : {}), updatedAt: new Date() })
      .where(eq(templates.id, row.id))
      .returning();
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "template.version_published",
      resourceType: "template",
      resourceId: row.id,
      metadata: { version: next, makeCurrent: input.makeCurrent },
    });
    return { template: toTemplate(updated as TemplateRow), version: toVersion(version as VersionRow) };
  });
}
