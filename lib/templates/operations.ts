import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as templates from "./service";

export const listTemplates = defineOperation(c.listTemplates, ({ db, principal, query }) => templates.listTemplates(db, principal, query));
export const createTemplate = defineOperation(c.createTemplate, ({ db, principal, body }) => templates.createTemplate(db, principal, body));
export const getTemplate = defineOperation(c.getTemplate, ({ db, principal, params }) => templates.getTemplate(db, principal, params.idOrSlug));
export const updateTemplate = defineOperation(c.updateTemplate, ({ db, principal, params, body }) => templates.updateTemplate(db, principal, params.idOrSlug, body));
export const deleteTemplate = defineOperation(c.deleteTemplate, ({ db, principal, params }) => templates.archiveTemplate(db, principal, params.idOrSlug));
export const listTemplateVersions = defineOperation(c.listTemplateVersions, ({ db, principal, params }) => templates.listTemplateVersions(db, principal, params.idOrSlug));
export const publishTemplateVersion = defineOperation(c.publishTemplateVersion, ({ db, principal, params, body }) =>
  templates.publishTemplateVersion(db, principal, params.idOrSlug, body),
);
export const getTemplateVersion = defineOperation(c.getTemplateVersion, ({ db, principal, params }) => templates.getTemplateVersion(db, principal, params.idOrSlug, params.version));
export const renderTemplate = defineOperation(c.renderTemplate, ({ db, principal, params, body }) => templates.renderTemplate(db, principal, params.idOrSlug, body), {
  audit: { none: "a preview: nothing is stored or sent" },
});
