import type { RenderedSend, ResolvedSend } from "./draft";

/** Stage 3: what the message says (text and html as given; templates and react will render here). */
export function renderSend(r: ResolvedSend): RenderedSend {
  return { ...r, subject: r.input.subject ?? "", text: r.input.text ?? null, html: r.input.html ?? null, replyTo: r.input.replyTo ?? null };
}
