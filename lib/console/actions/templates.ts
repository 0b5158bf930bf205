"use server";

import { runAction } from "@/lib/console/action";
import {
  createTemplate,
  deleteTemplate,
  publishTemplateVersion,
  renderTemplate,
  updateTemplate,
} from "@/lib/templates/operations";

const labels = { source: "source", subject: "subject template", variables: "variables schema", notes: "notes" };

/** Creates a template with its version 1 (`POST /v1/templates`). */
export async function createTemplateAction(input: unknown) {
  return runAction(createTemplate, input, { labels, then: (data) => ({ id: data.template.id }) });
}

/** Publishes the next version; it becomes current unless `makeCurrent` is false. */
export async function publishVersionAction(input: unknown) {
  return runAction(publishTemplateVersion, input, { labels, then: (data) => ({ version: data.version.version }) });
}

/** Rolls back or forward (`currentVersion`), renames, or restores (`archived: false`). */
export async function updateTemplateAction(input: unknown) {
  return runAction(updateTemplate, input, { then: (data) => data.template });
}

/** Archives the template (`DELETE /v1/templates/{idOrSlug}`): its versions stay readable. */
export async function archiveTemplateAction(input: unknown) {
  return runAction(deleteTemplate, input, { then: (data) => data.template });
}

/** The editor's live preview: the draft rendered by the API's render operation in the sandbox; nothing is stored. */
export async function previewTemplateAction(input: unknown) {
  return runAction(renderTemplate, input);
}
