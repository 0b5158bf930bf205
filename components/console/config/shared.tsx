"use client";

import { type ReactNode, useEffect, useRef } from "react";
import { CopyButton } from "../copy-button";
import { Button } from "../form";

/** Messages of an array field and its items (`allowedIps`, `allowedIps[1]`, …, as the API names them), item keys labelled by `describe`. */
export function arrayFieldErrors(
  fields: Record<string, string> | undefined,
  name: string,
  describe: (index: number) => string,
): string[] {
  if (!fields) return [];
  const out: string[] = [];
  for (const [key, message] of Object.entries(fields)) {
    if (key === name) out.push(message);
    else if (key.startsWith(`${name}[`)) {
      const index = Number(/^\[(\d+)\]/.exec(key.slice(name.length))?.[1]);
      out.push(Number.isInteger(index) ? `${describe(index)}: ${message}` : message);
    }
  }
  return out;
}

/** True when an action failure carries a message for a field outside `known` (or none at all), so the form shows it on top. */
export function hasFormLevelError(fields: Record<string, string>, known: string[]): boolean {
  const keys = Object.keys(fields);
  return (
    keys.length === 0 ||
    keys.some((k) => !known.some((name) => k === name || k.startsWith(`${name}.`) || k.startsWith(`${name}[`)))
  );
}

/** Error lines under a group of inputs (fieldset, list textarea), announced when they appear. */
export function GroupErrors({ id, messages }: { id: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <div id={id} role="alert">
      <ul className="space-y-0.5 text-xs font-medium text-red-700 dark:text-red-400">
        {messages.map((m) => (
          <li key={m}>{m}</li>
        ))}
      </ul>
    </div>
  );
}

/** A polite live region for the outcome of an action ("Verified", "Test sent", …); render it always so changes are announced. */
export function LiveMessage({ tone = "ok", children }: { tone?: "ok" | "warn"; children?: ReactNode }) {
  return (
    <p
      role="status"
      className={
        tone === "ok"
          ? "min-h-5 text-sm font-medium text-emerald-800 dark:text-emerald-300"
          : "min-h-5 text-sm font-medium text-amber-900 dark:text-amber-200"
      }
    >
      {children}
    </p>
  );
}

/** A secret shown exactly once (new API key, webhook signing secret) with a copy button and a warning. */
export function OnceSecret({
  title,
  secret,
  testId,
  onDismiss,
}: {
  title: string;
  secret: string;
  testId: string;
  onDismiss: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [secret]);
  return (
    <section
      aria-label={title}
      className="space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-4 dark:border-amber-800 dark:bg-amber-950"
    >
      <h2 ref={heading} tabIndex={-1} className="text-base font-semibold focus:outline-none">
        {title}
      </h2>
      <p className="text-sm text-zinc-800 dark:text-zinc-200">
        <strong>Copy it now: it will not be shown again.</strong> Store it somewhere safe; if it is lost, create a new
        one.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <code data-testid={testId} className="rounded bg-white px-2 py-1 font-mono text-sm break-all dark:bg-zinc-900">
          {secret}
        </code>
        <CopyButton value={secret} label="Copy secret" />
      </div>
      <Button type="button" variant="secondary" onClick={onDismiss}>
        I have copied it
      </Button>
    </section>
  );
}
