"use client";

import { useRouter } from "next/navigation";
import { type ChangeEvent, type FormEvent, type ReactNode, useEffect, useRef, useTransition } from "react";

/** How long typing pauses before a search runs. */
const TYPING_PAUSE_MS = 300;

/**
 * The form's non-empty values as a query string (an empty select or search means "any"); a
 * datetime-local value (the viewer's time zone) is written as the UTC instant it names.
 */
function queryOf(form: HTMLFormElement): string {
  const params = new URLSearchParams();
  const localTimes = new Set(
    Array.from(form.querySelectorAll<HTMLInputElement>('input[type="datetime-local"]'), (input) => input.name),
  );
  for (const [name, value] of new FormData(form)) {
    if (typeof value !== "string" || value.trim() === "") continue;
    const instant = localTimes.has(name) ? new Date(value.trim()) : null;
    params.append(name, instant && !Number.isNaN(instant.getTime()) ? instant.toISOString() : value.trim());
  }
  const qs = params.toString();
  return qs ? `?${qs}` : "";
}

/**
 * A list's filters and search (a GET form whose values are the URL's query): a select applies on
 * change, a text or search field after a pause in typing, both by replacing the URL (the server
 * component reads it again; the cursor is dropped, so the list starts at the newest). Without
 * script it is a plain form with a Filter button.
 */
export function FilterForm({
  action,
  label,
  className,
  children,
}: {
  action: string;
  label: string;
  className?: string;
  children: ReactNode;
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const formRef = useRef<HTMLFormElement>(null);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const apply = () => {
    const form = formRef.current;
    if (!form) return;
    const href = `${action}${queryOf(form)}`;
    startTransition(() => router.replace(href, { scroll: false }));
  };

  const onChange = (event: ChangeEvent<HTMLFormElement>) => {
    const target = event.target as HTMLElement;
    if (timer.current) clearTimeout(timer.current);
    if (target instanceof HTMLInputElement && (target.type === "text" || target.type === "search")) {
      timer.current = setTimeout(apply, TYPING_PAUSE_MS);
    } else {
      apply();
    }
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (timer.current) clearTimeout(timer.current);
    apply();
  };

  return (
    <form
      ref={formRef}
      method="get"
      action={action}
      aria-label={label}
      aria-busy={pending}
      data-pending={pending ? "" : undefined}
      className={className}
      onChange={onChange}
      onSubmit={onSubmit}
    >
      {children}
      <noscript>
        <button type="submit" className="rounded-md border border-zinc-300 px-3 py-2 text-sm dark:border-zinc-700">
          Filter
        </button>
      </noscript>
    </form>
  );
}
