import type { DbOrTx } from "@/db";
import { templates, templateVersions } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { ApiError } from "@/lib/core/errors";
import {
  checkVersion,
  slugify,
  toTemplate,
  toVersion,
  type VersionInput,
  type VersionRow,
  versionValues,
} from "./template";

export async function createTemplate(
  db: DbOrTx,
  principal: Principal,
  input: VersionInput & { name: string; slug?: string },
) {
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
        const [version] = await tx
          .insert(templateVersions)
          .values(versionValues(row, 1, input, variables))
          .returning();
        await recordAudit(tx, principal, {
          orgId: principal.orgId,
          action: "template.created",
          resourceType: "template",
          resourceId: row.id,
          metadata: { slug, version: 1 },
        });
        return { template: toTemplate(row), version: toVersion(version as VersionRow) };
      });
    } catch (err) {
      if (explicit || !(err instanceof ApiError && err.code === "conflict") || slug !== candidates[0]) throw err;
    }
  }
  throw new Error("unreachable");
}
