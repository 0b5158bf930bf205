import type { ReactNode } from "react";

/** A collapsed, pretty-printed JSON value (`<details>`, so it opens without JavaScript). */
export function JsonDetails({
  value,
  summary = "Show JSON",
  testId,
}: {
  value: unknown;
  summary?: ReactNode;
  testId?: string;
}) {
  if (value === null || value === undefined) return <span className="text-zinc-600 dark:text-zinc-400">—</span>;
  return (
    <details className="max-w-xl" data-testid={testId}>
      <summary className="cursor-pointer text-sm font-medium text-sky-800 select-none dark:text-sky-300">
        {summary}
      </summary>
      <pre className="mt-2 max-h-96 overflow-auto rounded bg-zinc-100 p-2 font-mono text-xs whitespace-pre-wrap break-all text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100">
        {JSON.stringify(value, null, 2)}
      </pre>
    </details>
  );
}

/** The `message` of a serialized error (`{name, message}`), else its JSON, else null. */
export function errorText(error: unknown): string | null {
  if (error === null || error === undefined) return null;
  if (typeof error === "string") return error;
  if (typeof error === "object" && "message" in error && typeof error.message === "string") {
    const name = "name" in error && typeof error.name === "string" ? `${error.name}: ` : "";
    return `${name}${error.message}`;
  }
  return JSON.stringify(error);
}
