import type { ReactNode } from "react";

/**
 * The Markdown the contracts' descriptions use, rendered as React elements (no HTML strings):
 * paragraphs (blank lines), `code`, **bold** and [links](https://…). Anything else stays text.
 */
export function Markdown({ text, className }: { text: string; className?: string }) {
  const paragraphs = text.split(/\n\s*\n/).filter((p) => p.trim() !== "");
  return (
    <div className={className}>
      {paragraphs.map((p, i) => (
        <p key={i} className={i > 0 ? "mt-2" : undefined}>
          {inline(p)}
        </p>
      ))}
    </div>
  );
}

const TOKEN = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(((?:https?:\/\/|\/)[^)\s]+)\)/g;

/** Inline Markdown of one paragraph as elements. */
export function inline(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    if (m[1] !== undefined) {
      out.push(
        <code
          key={n++}
          className="rounded bg-zinc-100 px-1 py-0.5 font-mono text-[0.85em] break-words text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100"
        >
          {m[1]}
        </code>,
      );
    } else if (m[2] !== undefined) {
      out.push(<strong key={n++}>{m[2]}</strong>);
    } else if (m[3] !== undefined && m[4] !== undefined) {
      out.push(
        <a key={n++} className="link" href={m[4]}>
          {m[3]}
        </a>,
      );
    }
    last = at + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
