import { index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import type { RootVariableSchema } from "@/lib/templates/render/variables";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { organizations } from "./organizations";

/**
 * react-email templates (spec part 7). A template is a name, a slug unique in its organization and a
 * pointer (`currentVersion`) into its append-only history of versions. `latestVersion` is the
 * per-template sequence: publishing increments it under the row's lock, so concurrent publishes get
 * 2, 3, 4… and never the same number.
 */
export const templates = pgTable(
  "templates",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    slug: text().notNull(),
    currentVersion: integer().notNull(),
    latestVersion: integer().notNull(),
    status: text({ enum: ["active", "archived"] })
      .notNull()
      .default("active"),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    archivedAt: tstz(),
  },
  (t) => [
    uniqueIndex("templates_org_slug_key").on(t.orgId, t.slug),
    index("templates_org_created_idx").on(t.orgId, t.createdAt, t.id),
  ],
);

/**
 * One immutable version of a template: what a send pins. Rows are never updated (a trigger in the
 * migration refuses UPDATE), and go only when their organization does.
 */
export const templateVersions = pgTable(
  "template_versions",
  {
    templateId: uuid()
      .notNull()
      .references(() => templates.id, { onDelete: "cascade" }),
    version: integer().notNull(),
    orgId: orgRef(),
    source: text().notNull(),
    /** Subject template with `{{ name }}` placeholders, or null (the send gives the subject). */
    subject: text(),
    /** The variable schema (a JSON Schema subset), or null for "any JSON object". */
    variables: jsonb().$type<RootVariableSchema | null>(),
    notes: text(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: "template_versions_pkey", columns: [t.templateId, t.version] })],
);
