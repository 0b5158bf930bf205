"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import {
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useContext,
  useId,
  useRef,
} from "react";
import type { ActionResult } from "@/lib/console/action";
import { ORG_FIELD } from "@/lib/console/org-field";
import { OrgContext } from "./org-context";
import { cx } from "./ui";

type ActionError = Extract<ActionResult, { ok: false }>["error"];

/** Thrown by `useAction` when a server action answers with an error result. */
export class ActionFailure extends Error {
  constructor(readonly error: ActionError) {
    super(error.message);
  }
}

/**
 * A server action as a TanStack mutation: errors (validation with field messages, permission,
 * conflicts) arrive as `failure`; on success the page's server data is refreshed.
 */
export function useAction<I, T>(
  action: (input: I) => Promise<ActionResult<T>>,
  options: { onSuccess?: (data: T) => void; refresh?: boolean } = {},
) {
  const router = useRouter();
  const orgId = useContext(OrgContext);
  const mutation = useMutation({
    mutationFn: async (input: I) => {
      const tagged =
        orgId && input && typeof input === "object" && !Array.isArray(input)
          ? ({ ...input, [ORG_FIELD]: orgId } as I)
          : input;
      const result = await action(tagged);
      // An action that redirects (sign-in, accept) resolves without a result while the router navigates.
      if (!result) return undefined as T;
      if (!result.ok) throw new ActionFailure(result.error);
      return result.data;
    },
    onSuccess: (data) => {
      if (options.refresh !== false) router.refresh();
      options.onSuccess?.(data);
    },
  });
  const failure =
    mutation.error instanceof ActionFailure
      ? mutation.error.error
      : mutation.error
        ? { code: "network", message: "The request failed; check your connection and retry.", param: null, fields: {} }
        : null;
  return { ...mutation, failure, fieldError: (name: string) => failure?.fields[name] };
}

/** `useAction` for a form: spread `formProps` on the `<form>` to submit its `formValues` (plus `extra()`, which wins) and, with `reset`, clear it on success. */
export function useActionForm<T>(
  action: (input: Record<string, unknown>) => Promise<ActionResult<T>>,
  options: {
    arrays?: string[];
    numbers?: string[];
    reset?: boolean;
    onSuccess?: (data: T) => void;
    refresh?: boolean;
    extra?: () => Record<string, unknown>;
  } = {},
) {
  const { arrays, numbers, reset = false, onSuccess, refresh, extra } = options;
  const ref = useRef<HTMLFormElement>(null);
  const mutation = useAction(action, {
    refresh,
    onSuccess: (data) => {
      onSuccess?.(data);
      if (reset) ref.current?.reset();
    },
  });
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    mutation.mutate({ ...formValues(e.currentTarget, arrays, numbers), ...extra?.() });
  };
  return { ...mutation, formProps: { ref, noValidate: true, onSubmit } };
}

/** A number input's value for an action: empty is null, a number is sent as one, anything else as typed (the API says what is wrong). */
export function numberValue(raw: FormDataEntryValue | null | undefined): number | string | null {
  if (typeof raw !== "string" || raw.trim() === "") return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : raw;
}

/** Form values as an object: empty strings dropped, repeated names (checkboxes) as arrays, `numbers` as numbers. */
export function formValues(
  form: HTMLFormElement,
  arrays: string[] = [],
  numbers: string[] = [],
): Record<string, unknown> {
  const data = new FormData(form);
  const out: Record<string, unknown> = {};
  for (const name of new Set(data.keys())) {
    const values = data.getAll(name).filter((v): v is string => typeof v === "string");
    if (arrays.includes(name)) out[name] = values.filter((v) => v !== "");
    else if (values[0] !== undefined && values[0] !== "")
      out[name] = numbers.includes(name) ? numberValue(values[0]) : values[0];
  }
  for (const name of arrays) out[name] ??= [];
  return out;
}

const inputClass =
  "block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-zinc-900 focus:ring-2 focus:ring-zinc-900/20 focus:outline-none dark:border-zinc-700 dark:bg-zinc-900 dark:focus:border-zinc-300";

function FieldShell({
  id,
  label,
  error,
  hint,
  children,
}: {
  id: string;
  label: ReactNode;
  error?: string;
  hint?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      {children}
      {hint && !error ? (
        <p id={`${id}-hint`} className="text-xs text-zinc-600 dark:text-zinc-400">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} role="alert" className="text-xs font-medium text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </div>
  );
}

type FieldProps = { label: ReactNode; error?: string; hint?: ReactNode };

export function Field({ label, error, hint, className, ...props }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <FieldShell id={id} label={label} error={error} hint={hint}>
      <input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : hint ? `${id}-hint` : undefined}
        className={cx(inputClass, className)}
        {...props}
      />
    </FieldShell>
  );
}

export function TextArea({
  label,
  error,
  hint,
  className,
  ...props
}: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  return (
    <FieldShell id={id} label={label} error={error} hint={hint}>
      <textarea
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : hint ? `${id}-hint` : undefined}
        className={cx(inputClass, className)}
        {...props}
      />
    </FieldShell>
  );
}

export function Select({
  label,
  error,
  hint,
  className,
  children,
  ...props
}: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <FieldShell id={id} label={label} error={error} hint={hint}>
      <select
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        className={cx(inputClass, className)}
        {...props}
      >
        {children}
      </select>
    </FieldShell>
  );
}

export function Button({
  variant = "primary",
  pending,
  children,
  className,
  ...props
}: {
  /** `destructive`: a button that starts a destructive action (its confirmation is `danger`), outlined, never the page's main control. */
  variant?: "primary" | "secondary" | "danger" | "destructive";
  pending?: boolean;
} & React.ButtonHTMLAttributes<HTMLButtonElement>) {
  const styles = {
    primary: "bg-zinc-900 text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300",
    secondary:
      "border border-zinc-300 bg-white text-zinc-900 hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800",
    danger: "bg-red-700 text-white hover:bg-red-600",
    destructive:
      "border border-red-300 bg-white text-red-800 hover:bg-red-50 dark:border-red-900 dark:bg-zinc-900 dark:text-red-300 dark:hover:bg-red-950",
  }[variant];
  return (
    <button
      type="submit"
      disabled={pending || props.disabled}
      aria-busy={pending || undefined}
      className={cx(
        "inline-flex items-center justify-center gap-2 rounded-md px-3 py-2 text-sm font-medium shadow-sm focus-visible:ring-2 focus-visible:ring-zinc-900 focus-visible:ring-offset-2 focus-visible:outline-none disabled:cursor-not-allowed disabled:opacity-60",
        styles,
        className,
      )}
      {...props}
    >
      {pending ? (
        <span aria-hidden className="size-3 animate-spin rounded-full border-2 border-current border-t-transparent" />
      ) : null}
      {children}
    </button>
  );
}

/** The link from a failed action to its request log entry (for roles that may read the log), or nothing. */
export function LogEntryLink({ failure }: { failure: ActionError | null }) {
  if (!failure?.logId) return null;
  return (
    <>
      {" "}
      <Link className="link whitespace-nowrap" href={`/logs/${failure.logId}`} data-testid="failure-log-link">
        See this request in the log
      </Link>
    </>
  );
}

/**
 * The form-level error of a failed action (field errors show beside their fields), linked to its
 * request log entry. `beside`: the action's failure when its messages are shown beside the fields
 * (so `failure` is null): only the link to its log entry is shown here.
 */
export function FormError({ failure, beside }: { failure: ActionError | null; beside?: ActionError | null }) {
  if (!failure) {
    if (!beside?.logId) return null;
    return (
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Refused as said beside the fields.
        <LogEntryLink failure={beside} />
      </p>
    );
  }
  return (
    <p
      role="alert"
      className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
    >
      {failure.message}
      <LogEntryLink failure={failure} />
    </p>
  );
}
