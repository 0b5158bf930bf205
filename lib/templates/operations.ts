import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as create from "./create";
import * as publish from "./publish";
import * as read from "./read";
import * as render from "./render-template";
import * as update from "./update";

export const listTemplates = defineOperation(c.listTemplates, ({ db, principal, query }) =>
  read.listTemplates(db, principal, query),
);
export const createTemplate = defineOperation(c.createTemplate, ({ db, principal, body }) =>
  create.createTemplate(db, principal, body),
);
export const getTemplate = defineOperation(c.getTemplate, ({ db, principal, params }) =>
  read.getTemplate(db, principal, params.idOrSlug),
);
export const updateTemplate = defineOperation(c.updateTemplate, ({ db, principal, params, body }) =>
  update.updateTemplate(db, principal, params.idOrSlug, body),
);
export const deleteTemplate = defineOperation(c.deleteTemplate, ({ db, principal, params }) =>
  update.archiveTemplate(db, principal, params.idOrSlug),
);
export const listTemplateVersions = defineOperation(c.listTemplateVersions, ({ db, principal, params }) =>
  read.listTemplateVersions(db, principal, params.idOrSlug),
);
export const publishTemplateVersion = defineOperation(c.publishTemplateVersion, ({ db, principal, params, body }) =>
  publish.publishTemplateVersion(db, principal, params.idOrSlug, body),
);
export const getTemplateVersion = defineOperation(c.getTemplateVersion, ({ db, principal, params }) =>
  read.getTemplateVersion(db, principal, params.idOrSlug, params.version),
);
export const renderTemplate = defineOperation(
  c.renderTemplate,
  ({ db, principal, params, body }) => render.renderTemplate(db, principal, params.idOrSlug, body),
  {
    audit: { none: "a preview: nothing is stored or sent" },
  },
);
