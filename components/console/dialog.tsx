"use client";

import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { Button } from "./form";
import { cx } from "./ui";

/**
 * A modal dialog on the native `<dialog>` element (`showModal`): the browser moves focus into it,
 * keeps it there, makes the page behind inert, closes it on Escape and returns focus to the
 * control that opened it. Titled by its heading (`aria-labelledby`), described by `description`.
 */
export function Dialog({
  open,
  onClose,
  title,
  description,
  children,
  wide,
  testId,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  wide?: boolean;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      d.showModal();
      // showModal focuses the first focusable element (Close); a dialog may name a safer one.
      d.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    } else if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={`${id}-title`}
      aria-describedby={description ? `${id}-desc` : undefined}
      data-testid={testId}
      onClose={onClose}
      // A click on the backdrop (the dialog element itself, outside its panel) closes it.
      onClick={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
      className={cx(
        "m-auto w-[calc(100%-2rem)] rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-black/50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100",
        wide ? "max-w-3xl" : "max-w-md",
      )}
    >
      {open ? (
        <div className="max-h-[85vh] space-y-4 overflow-y-auto p-5">
          <div className="flex items-start justify-between gap-4">
            <h2 id={`${id}-title`} className="text-base font-semibold break-words">
              {title}
            </h2>
            <button type="button" onClick={onClose} className="link shrink-0 text-sm" aria-label="Close">
              Close
            </button>
          </div>
          {description ? (
            <div id={`${id}-desc`} className="text-sm text-zinc-700 dark:text-zinc-300">
              {description}
            </div>
          ) : null}
          {children}
        </div>
      ) : null}
    </dialog>
  );
}

/**
 * A button that asks before a destructive action, in an accessible dialog (not the browser's
 * `confirm`): what will happen, and with `typeToConfirm`, the name to type before the confirm button
 * is enabled (deleting a domain, an inbox, a webhook). Cancel is focused first.
 */
export function ConfirmButton({
  label,
  title,
  description,
  confirmLabel,
  typeToConfirm,
  onConfirm,
  pending,
  variant = "danger",
  disabled,
  ariaLabel,
}: {
  label: ReactNode;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  typeToConfirm?: string;
  onConfirm: () => void;
  pending?: boolean;
  variant?: "danger" | "secondary";
  disabled?: boolean;
  /** The trigger's accessible name when its visible label is shared by several rows ("Revoke key-name"). */
  ariaLabel?: string;
}) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const inputId = useId();
  const matches = !typeToConfirm || typed.trim() === typeToConfirm;
  const close = () => {
    setOpen(false);
    setTyped("");
  };
  return (
    <>
      <Button
        type="button"
        variant={variant === "danger" ? "destructive" : "secondary"}
        pending={pending}
        disabled={disabled}
        onClick={() => setOpen(true)}
        aria-haspopup="dialog"
        aria-label={ariaLabel}
      >
        {label}
      </Button>
      <Dialog open={open} onClose={close} title={title} description={description}>
        <form
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            if (!matches) return;
            close();
            onConfirm();
          }}
        >
          {typeToConfirm ? (
            <div className="space-y-1">
              <label htmlFor={inputId} className="block text-sm font-medium">
                Type <span className="font-mono break-all">{typeToConfirm}</span> to confirm
              </label>
              <input
                id={inputId}
                value={typed}
                onChange={(e) => setTyped(e.target.value)}
                autoComplete="off"
                spellCheck={false}
                className="block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 font-mono text-sm dark:border-zinc-700 dark:bg-zinc-900"
              />
            </div>
          ) : null}
          <div className="flex flex-wrap justify-end gap-2">
            {/* The safe choice takes focus when the dialog opens. */}
            <Button type="button" variant="secondary" onClick={close} data-autofocus>
              Cancel
            </Button>
            <Button type="submit" variant={variant === "danger" ? "danger" : "primary"} disabled={!matches}>
              {confirmLabel}
            </Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
