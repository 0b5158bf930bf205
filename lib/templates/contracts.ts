import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { paginationQuery } from "@/lib/core/pagination";
import { isoDate, paginationSchema } from "@/lib/core/schemas";
import { MAX_SOURCE_CHARS } from "./render/limits";
import { MAX_SUBJECT_CHARS } from "./render/subject";

/**
 * Templates (spec part 7): react-email sources with an append-only history of immutable versions.
 * Paths and scopes from endpoints.md; `{idOrSlug}` takes the template's id or its slug.
 */
const tag = "Templates";

export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const slug = z
  .string()
  .regex(SLUG, "Use 1 to 64 lowercase letters, digits and hyphens, starting and ending with a letter or digit.");
const name = z.string().trim().min(1).max(120);
const notes = z.string().max(2000);

export const templateSchema = z.object({
  object: z.literal("template"),
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  status: z
    .enum(["active", "archived"])
    .describe("`archived` templates keep their versions readable; sending one needs an explicit `version`."),
  currentVersion: z.number().int().describe("The version a send uses when it names none."),
  latestVersion: z.number().int().describe("The highest published version."),
  createdAt: isoDate,
  updatedAt: isoDate,
  archivedAt: isoDate.nullable(),
});

const variableSchemaDoc = z
  .record(z.string(), z.unknown())
  .nullable()
  .describe(
    'The version\'s variable schema, a JSON Schema subset: `type: "object"` with `properties` (each `type`, `enum`, `maxLength`, `format` `email`/`uri`, `default`, `items`, `maxItems`, nested `properties`), `required`, `additionalProperties`. Null: any JSON object.',
  );

export const templateVersionSchema = z.object({
  object: z.literal("template_version"),
  templateId: z.uuid(),
  version: z.number().int(),
  source: z.string(),
  subject: z.string().nullable().describe("Subject template with `{{ name }}` placeholders, or null."),
  variables: variableSchemaDoc,
  notes: z.string().nullable(),
  createdAt: isoDate,
});

/** The versions list's items (spec: `{version, variables, createdAt, subject, notes}`). */
const versionSummarySchema = z.object({
  version: z.number().int(),
  variables: variableSchemaDoc,
  createdAt: isoDate,
  subject: z.string().nullable(),
  notes: z.string().nullable(),
});

/** react-email source, as templates and a send's `react` take it. */
export const templateSourceSchema = z
  .string()
  .min(1)
  .max(MAX_SOURCE_CHARS)
  .describe(
    "react-email TSX whose default export is the email component. Imports: `react` and `@react-email/components` only.",
  );

const versionInput = {
  source: templateSourceSchema,
  subject: z
    .string()
    .min(1)
    .max(MAX_SUBJECT_CHARS)
    .optional()
    .describe("Subject template, e.g. `Your order {{ order.id }}`."),
  variables: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .describe("Variable schema (see `variables` on TemplateVersion)."),
  notes: notes.optional(),
};

const EXAMPLE_SOURCE =
  'import { Html, Text } from "@react-email/components";\nexport default function Welcome({ name }) {\n  return <Html><Text>Hello {name}</Text></Html>;\n}';
const EXAMPLE_VARIABLES = { type: "object", properties: { name: { type: "string", maxLength: 80, default: "there" } } };

export const idOrSlugParam = z.string().min(1).max(100);
const params = z.strictObject({ idOrSlug: idOrSlugParam });
const versionParams = z.strictObject({
  idOrSlug: idOrSlugParam,
  version: z.coerce.number().int().min(1).max(2_147_483_647),
});
const one = z.object({ template: templateSchema });

export const listTemplates = defineContract({
  id: "listTemplates",
  method: "GET",
  path: "/v1/templates",
  access: "templates:read",
  tag,
  summary: "List templates",
  description: "Newest first. `status` filters active or archived templates (both by default).",
  query: z.strictObject({ ...paginationQuery(), status: z.enum(["active", "archived"]).optional() }),
  response: z.object({ templates: z.array(templateSchema), pagination: paginationSchema }),
});

export const createTemplate = defineContract({
  id: "createTemplate",
  method: "POST",
  path: "/v1/templates",
  access: "templates:write",
  tag,
  summary: "Create a template",
  description:
    "Creates a template and publishes its version 1, which becomes current. The source is compiled (imports limited to `react` and `@react-email/components`), the variable schema and the subject template are checked; any problem is a 400 naming the field. `slug` defaults to one made from the name; it is unique in the organization (409).",
  body: z.strictObject({ name, slug: slug.optional(), ...versionInput }),
  example: {
    name: "Welcome",
    slug: "welcome",
    source: EXAMPLE_SOURCE,
    subject: "Welcome, {{ name }}",
    variables: EXAMPLE_VARIABLES,
    notes: "First version",
  },
  errors: ["conflict"],
  response: z.object({ template: templateSchema, version: templateVersionSchema }),
});

export const getTemplate = defineContract({
  id: "getTemplate",
  method: "GET",
  path: "/v1/templates/{idOrSlug}",
  access: "templates:read",
  tag,
  summary: "Get a template",
  description: "The template and its current version.",
  params,
  response: z.object({ template: templateSchema, version: templateVersionSchema }),
});

export const updateTemplate = defineContract({
  id: "updateTemplate",
  method: "PATCH",
  path: "/v1/templates/{idOrSlug}",
  access: "templates:write",
  tag,
  summary: "Update a template",
  description:
    "Renames it, changes its slug (409 when taken), re-points `currentVersion` to any published version (roll forward or back), or archives (`archived: true`) and restores (`archived: false`) it. Versions themselves never change.",
  params,
  body: z.strictObject({
    name: name.optional(),
    slug: slug.optional(),
    currentVersion: z.number().int().min(1).optional(),
    archived: z.boolean().optional(),
  }),
  example: { currentVersion: 1 },
  errors: ["conflict"],
  response: one,
});

export const deleteTemplate = defineContract({
  id: "deleteTemplate",
  method: "DELETE",
  path: "/v1/templates/{idOrSlug}",
  access: "templates:write",
  tag,
  summary: "Archive a template",
  description:
    "Archives the template: its versions stay readable (and sendable with an explicit `version`); it is never erased while messages may refer to it.",
  params,
  response: one,
});

export const listTemplateVersions = defineContract({
  id: "listTemplateVersions",
  method: "GET",
  path: "/v1/templates/{idOrSlug}/versions",
  access: "templates:read",
  tag,
  summary: "List a template's versions",
  description: "Every version, newest first, without their sources (read one version for its source).",
  params,
  response: z.object({ templateId: z.uuid(), versions: z.array(versionSummarySchema) }),
});

export const publishTemplateVersion = defineContract({
  id: "publishTemplateVersion",
  method: "POST",
  path: "/v1/templates/{idOrSlug}/versions",
  access: "templates:write",
  tag,
  summary: "Publish a new version",
  description:
    "Publishes the next version (the per-template sequence: 2, 3, …; concurrent publishes never share a number). It becomes current unless `makeCurrent` is false (publish now, roll forward later with PATCH). Publishing to an archived template is refused (409).",
  params,
  body: z.strictObject({ ...versionInput, makeCurrent: z.boolean().default(true) }),
  example: {
    source: EXAMPLE_SOURCE,
    subject: "Welcome aboard, {{ name }}",
    variables: EXAMPLE_VARIABLES,
    notes: "Friendlier subject",
  },
  errors: ["conflict"],
  response: z.object({ template: templateSchema, version: templateVersionSchema }),
});

export const getTemplateVersion = defineContract({
  id: "getTemplateVersion",
  method: "GET",
  path: "/v1/templates/{idOrSlug}/versions/{version}",
  access: "templates:read",
  tag,
  summary: "Get one version of a template",
  params: versionParams,
  response: z.object({ version: templateVersionSchema }),
});

export const renderTemplate = defineContract({
  id: "renderTemplate",
  method: "POST",
  path: "/v1/templates/{idOrSlug}/render",
  access: "templates:read",
  tag,
  summary: "Preview a template",
  description:
    "Renders a version (the current one unless `version` is given) with the variables, exactly as a send would, and sends nothing. With `draft` it renders that unpublished source instead (the console editor's live preview): the draft is checked as publishing would check it and nothing is stored; a draft whose source is not one of the template's stored versions runs new code, so it needs `templates:write` (403 `scope_missing`, `param` `draft.source`, for a read-only key), and every draft renders in a throwaway sandbox context. An organization over its share of the renderer gets 429 `rate_limited` with `Retry-After`. A variable the schema refuses is a 400 whose `param` names it (`variables.name`); a draft that does not compile names `draft.source`, `draft.subject` or `draft.variables`; a source that fails in the sandbox is a 400 too.",
  params,
  body: z.strictObject({
    version: z.number().int().min(1).optional(),
    variables: z.record(z.string(), z.unknown()).optional(),
    subject: z.string().min(1).max(MAX_SUBJECT_CHARS).optional(),
    draft: z
      .strictObject({ source: templateSourceSchema, subject: versionInput.subject, variables: versionInput.variables })
      .optional()
      .describe("An unpublished version to render in place of a stored one (not with `version`)."),
  }),
  example: { variables: { name: "Ada" } },
  idempotent: false,
  response: z.object({
    templateId: z.uuid(),
    version: z.number().int(),
    subject: z.string().nullable(),
    html: z.string(),
    text: z.string().nullable(),
  }),
});
