/**
 * A message body, safe to show: HTML only inside an iframe with an empty `sandbox` (no scripts, no
 * forms, no same-origin access) and a Content-Security-Policy that also blocks remote content
 * (tracking pixels, external styles); otherwise the text body, preformatted.
 */

const CSP = "default-src 'none'; img-src data: cid:; style-src 'unsafe-inline'; font-src data:";

/** The HTML as the iframe's document, with the restrictive policy in front of it. */
export function sandboxedDocument(html: string): string {
  return `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}">${html}`;
}

export function MessageBody({
  html,
  text,
  from,
}: {
  html: string | null | undefined;
  text: string | null | undefined;
  from: string;
}) {
  if (html) {
    return (
      <div className="space-y-1">
        <iframe
          sandbox=""
          srcDoc={sandboxedDocument(html)}
          title={`Message body from ${from}`}
          className="h-96 w-full rounded border border-zinc-200 bg-white dark:border-zinc-700"
        />
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          HTML shown in a sandbox: scripts, forms and remote content are blocked.
        </p>
      </div>
    );
  }
  if (text) {
    return <pre className="font-sans text-sm break-words whitespace-pre-wrap">{text}</pre>;
  }
  return <p className="text-sm text-zinc-600 italic dark:text-zinc-400">This message has no body.</p>;
}
