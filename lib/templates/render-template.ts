import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { templateVersions } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { ApiError, invalidRequest } from "@/lib/core/errors";
import { renderReact } from "./render/index";
import { parseSubjectTemplate, renderSubject } from "./render/subject";
import { parseVariableSchema, type RootVariableSchema, validateVariables } from "./render/variables";
import { findTemplate, findVersion, templateFailure } from "./template";

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
    const out = await renderReact({
      tenant: `org:${orgId}`,
      source: v.source,
      props,
      param: param || undefined,
      stored: true,
    });
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
 * subject template, compile) and the same sandbox as a send, in a throwaway context. Errors name
 * `draft.source`, `draft.subject`, `draft.variables…` or the preview's own `variables.name`.
 *
 * Running a source that is not a stored version is authoring: without `templates:write` (a
 * `templates:read` key, a console member) the draft's source must be one of the template's stored
 * versions (its subject, schema and variables may differ: they are data), else 403 `scope_missing`.
 */
async function renderDraft(
  db: DbOrTx,
  orgId: string,
  idOrSlug: string,
  draft: DraftInput,
  input: { variables?: Record<string, unknown>; subject?: string },
  mayAuthor: boolean,
): Promise<RenderedTemplate> {
  const row = await findTemplate(db, orgId, idOrSlug);
  if (!mayAuthor) {
    const [stored] = await db
      .select({ version: templateVersions.version })
      .from(templateVersions)
      .where(and(eq(templateVersions.templateId, row.id), eq(templateVersions.source, draft.source)))
      .limit(1);
    if (!stored) {
      throw new ApiError(
        "scope_missing",
        'Previewing a draft whose source is not one of the template\'s stored versions needs the "templates:write" scope (a templates:read key previews stored versions only).',
        "draft.source",
      );
    }
  }
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
    return renderDraft(db, principal.orgId, idOrSlug, draft, rest, principal.scopes.has("templates:write"));
  }
  return renderVersion(db, principal.orgId, { idOrSlug, ...rest });
}
