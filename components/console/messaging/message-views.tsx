"use client";

import { type ReactNode, useId, useState } from "react";
import { cx } from "../ui";

type View = "html" | "text" | "headers";

/**
 * A message's body in three views: the sandboxed HTML (`MessageBody`), the plain-text part and the
 * header block. The text and the headers are React text inside `<pre>`: user content is never
 * parsed as markup on the console's origin. Tabs per the WAI-ARIA pattern (arrow keys move).
 */
export function MessageViews({
  html,
  text,
  headers,
}: {
  /** The sandboxed HTML view, or null when the message has no HTML part. */
  html: ReactNode | null;
  text: string | null;
  headers: string;
}) {
  const views: { id: View; label: string }[] = [
    ...(html ? [{ id: "html" as const, label: "HTML" }] : []),
    { id: "text", label: "Plain text" },
    { id: "headers", label: "Headers" },
  ];
  const [view, setView] = useState<View>(views[0]?.id ?? "text");
  const base = useId();
  const move = (delta: number) => {
    const i = views.findIndex((v) => v.id === view);
    const next = views[(i + delta + views.length) % views.length];
    if (next) {
      setView(next.id);
      document.getElementById(`${base}-tab-${next.id}`)?.focus();
    }
  };
  return (
    <div>
      <div
        role="tablist"
        aria-label="Message views"
        className="mb-3 flex gap-1 border-b border-zinc-200 dark:border-zinc-700"
      >
        {views.map((v) => (
          <button
            key={v.id}
            id={`${base}-tab-${v.id}`}
            type="button"
            role="tab"
            aria-selected={view === v.id}
            aria-controls={`${base}-panel`}
            tabIndex={view === v.id ? 0 : -1}
            onClick={() => setView(v.id)}
            onKeyDown={(e) => {
              if (e.key === "ArrowRight") move(1);
              else if (e.key === "ArrowLeft") move(-1);
            }}
            className={cx(
              "-mb-px border-b-2 px-3 py-1.5 text-sm font-medium",
              view === v.id
                ? "border-zinc-900 text-zinc-900 dark:border-zinc-100 dark:text-zinc-100"
                : "border-transparent text-zinc-700 hover:text-zinc-900 dark:text-zinc-300 dark:hover:text-zinc-100",
            )}
          >
            {v.label}
          </button>
        ))}
      </div>
      <div id={`${base}-panel`} role="tabpanel" aria-labelledby={`${base}-tab-${view}`} data-testid={`view-${view}`}>
        {view === "html" ? (
          html
        ) : view === "text" ? (
          text ? (
            <pre tabIndex={0} className="font-sans text-sm break-words whitespace-pre-wrap">
              {text}
            </pre>
          ) : (
            <p className="text-sm text-zinc-600 italic dark:text-zinc-400">This message has no plain-text part.</p>
          )
        ) : (
          <div className="space-y-2">
            <pre
              tabIndex={0}
              className="overflow-x-auto rounded bg-zinc-50 p-3 font-mono text-xs break-all whitespace-pre-wrap dark:bg-zinc-900"
            >
              {headers}
            </pre>
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              The headers this service stores for the message. The raw MIME is not kept, so headers added in transit
              (Received, DKIM-Signature, Authentication-Results) are not shown.
            </p>
          </div>
        )}
      </div>
    </div>
  );
}
