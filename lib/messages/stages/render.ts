import type { DbOrTx } from "@/db";
import { renderReact } from "@/lib/templates/render";
import { renderVersion } from "@/lib/templates/render-template";
import { templateFailure } from "@/lib/templates/template";
import type { SendMessageInput } from "../contracts";
import type { RenderedSend, ResolvedSend } from "./draft";

/**
 * Stage 3: what the message says. `template` renders its version (the one named, else the current
 * one, which is then pinned) with the variables validated against that version's schema, and its
 * subject template unless `subject` is given; `react` renders its source with its props (a `text`
 * beside it is the plain part); otherwise `text` and `html` as given. Every render runs in the
 * template sandbox (lib/templates/render) in the organization's own context.
 */
export async function renderSend(db: DbOrTx, r: ResolvedSend): Promise<RenderedSend> {
  return { ...r, ...(await renderBody(db, r.principal.orgId, r.input)) };
}

export type RenderedBody = Pick<RenderedSend, "subject" | "text" | "html" | "replyTo" | "template">;

/** The body of a send (or of a broadcast, rendered once for every member). */
export async function renderBody(
  db: DbOrTx,
  orgId: string,
  input: Pick<SendMessageInput, "subject" | "text" | "html" | "react" | "template" | "replyTo">,
): Promise<RenderedBody> {
  const replyTo = input.replyTo ?? null;
  if (input.template) {
    const t = input.template;
    const out = await renderVersion(
      db,
      orgId,
      { idOrSlug: t.id, version: t.version, variables: t.variables, subject: input.subject },
      "template",
    );
    return {
      subject: out.subject ?? "",
      text: out.text,
      html: out.html,
      replyTo,
      template: { id: out.templateId, version: out.version },
    };
  }
  if (input.react) {
    let out;
    try {
      out = await renderReact({
        tenant: `org:${orgId}`,
        source: input.react.source,
        props: input.react.props,
        param: "react",
      });
    } catch (err) {
      return templateFailure(err);
    }
    return { subject: input.subject ?? "", text: input.text ?? out.text, html: out.html, replyTo, template: null };
  }
  return { subject: input.subject ?? "", text: input.text ?? null, html: input.html ?? null, replyTo, template: null };
}
