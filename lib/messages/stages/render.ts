import type { DbOrTx } from "@/db";
import { renderReact } from "@/lib/templates/render";
import { renderVersion, templateFailure } from "@/lib/templates/service";
import type { RenderedSend, ResolvedSend } from "./draft";

/**
 * Stage 3: what the message says. `template` renders its version (the one named, else the current
 * one, which is then pinned) with the variables validated against that version's schema, and its
 * subject template unless `subject` is given; `react` renders its source with its props (a `text`
 * beside it is the plain part); otherwise `text` and `html` as given. Every render runs in the
 * template sandbox (lib/templates/render) in the organization's own context.
 */
export async function renderSend(db: DbOrTx, r: ResolvedSend): Promise<RenderedSend> {
  const { input } = r;
  const replyTo = input.replyTo ?? null;
  if (input.template) {
    const t = input.template;
    const out = await renderVersion(db, r.principal.orgId, { idOrSlug: t.id, version: t.version, variables: t.variables, subject: input.subject }, "template");
    return { ...r, subject: out.subject ?? "", text: out.text, html: out.html, replyTo, template: { id: out.templateId, version: out.version } };
  }
  if (input.react) {
    let out;
    try {
      out = await renderReact({ tenant: `org:${r.principal.orgId}`, source: input.react.source, props: input.react.props, param: "react" });
    } catch (err) {
      return templateFailure(err);
    }
    return { ...r, subject: input.subject ?? "", text: input.text ?? out.text, html: out.html, replyTo, template: null };
  }
  return { ...r, subject: input.subject ?? "", text: input.text ?? null, html: input.html ?? null, replyTo, template: null };
}
