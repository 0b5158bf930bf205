import Link from "next/link";
import { Fragment, type ReactNode, useId } from "react";
import { LocalTime } from "./local-time";
import { DELIVERY_TONES } from "@/lib/console/message-status";
import { DELIVERY_STATUS_LABELS, type DeliveryStatus } from "@/lib/messages/delivery-status";

/**
 * Presentational building blocks of the console (server-safe: no hooks). Pages compose these so
 * every screen has the same header, tables, empty states and badges.
 */

export function cx(...classes: (string | false | null | undefined)[]): string {
  return classes.filter(Boolean).join(" ");
}

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="mb-6 flex flex-wrap items-start justify-between gap-4">
      {/* min-w-0 and break-words: a long address as the title wraps at phone width instead of scrolling sideways. */}
      <div className="min-w-0">
        <h1 className="text-2xl font-semibold tracking-tight break-words">{title}</h1>
        {description ? <p className="mt-1 max-w-2xl text-sm text-zinc-600 dark:text-zinc-400">{description}</p> : null}
      </div>
      {actions ? <div className="flex items-center gap-2">{actions}</div> : null}
    </div>
  );
}

export function Card({
  title,
  actions,
  children,
  className,
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section
      className={cx(
        "rounded-lg border border-zinc-200 bg-white p-5 shadow-sm dark:border-zinc-800 dark:bg-zinc-900",
        className,
      )}
    >
      {title || actions ? (
        <div className="mb-4 flex items-center justify-between gap-2">
          {title ? <h2 className="text-base font-semibold">{title}</h2> : <span />}
          {actions}
        </div>
      ) : null}
      {children}
    </section>
  );
}

/**
 * A data table; below the `md` breakpoint every row becomes a stacked card whose cells carry their
 * column's name (a scoped rule per column: `td:nth-child(n)::before`), so a phone never squeezes
 * columns to one character per line. An empty header names an actions column ("Actions" to screen
 * readers), so every cell has a header (axe: td-has-header).
 */
export function Table({ head, children, caption }: { head: ReactNode[]; children: ReactNode; caption?: string }) {
  const scope = useId().replace(/[^a-zA-Z0-9_-]/g, "");
  const labels = head
    .map((h, i) =>
      typeof h === "string" && h !== ""
        ? `[data-cards="${scope}"] td:nth-child(${i + 1})::before{content:${JSON.stringify(h).replace(/</g, "\\3c ")}}`
        : "",
    )
    .join("");
  return (
    // Focusable, so a keyboard can scroll a table wider than the screen (axe: scrollable-region-focusable).
    <div
      tabIndex={0}
      role="region"
      aria-label={caption ?? "Table"}
      className="overflow-x-auto rounded-lg border border-zinc-200 max-md:border-0 dark:border-zinc-800"
    >
      {labels ? <style>{`@media (width < 48rem){${labels}}`}</style> : null}
      <table
        data-cards={scope}
        className="min-w-full divide-y divide-zinc-200 text-sm max-md:block max-md:divide-y-0 dark:divide-zinc-800 max-md:[&_tbody]:block max-md:[&_tbody]:space-y-3 max-md:[&_tbody]:divide-y-0 max-md:[&_td]:flex max-md:[&_td]:gap-3 max-md:[&_td]:px-3 max-md:[&_td]:py-1 max-md:[&_td]:before:w-24 max-md:[&_td]:before:shrink-0 max-md:[&_td]:before:text-xs max-md:[&_td]:before:font-semibold max-md:[&_td]:before:text-zinc-600 max-md:[&_td]:before:uppercase dark:max-md:[&_td]:before:text-zinc-300 max-md:[&_tr]:block max-md:[&_tr]:rounded-lg max-md:[&_tr]:border max-md:[&_tr]:border-zinc-200 max-md:[&_tr]:py-2 dark:max-md:[&_tr]:border-zinc-800"
      >
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        <thead className="bg-zinc-50 max-md:sr-only dark:bg-zinc-900">
          <tr>
            {head.map((h, i) => (
              <th
                key={i}
                scope="col"
                className="px-3 py-2 text-left text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-300"
              >
                {h === "" ? <span className="sr-only">Actions</span> : h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100 bg-white dark:divide-zinc-800 dark:bg-zinc-950">{children}</tbody>
      </table>
    </div>
  );
}

export function Td({ children, className, colSpan }: { children?: ReactNode; className?: string; colSpan?: number }) {
  return (
    <td colSpan={colSpan} className={cx("px-3 py-2 align-top", className)}>
      {children}
    </td>
  );
}

export function EmptyState({
  title,
  description,
  action,
}: {
  title: string;
  description?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="rounded-lg border border-dashed border-zinc-300 px-6 py-12 text-center dark:border-zinc-700">
      <p className="text-base font-medium">{title}</p>
      {description ? (
        <p className="mx-auto mt-1 max-w-md text-sm text-zinc-600 dark:text-zinc-400">{description}</p>
      ) : null}
      {action ? <div className="mt-4">{action}</div> : null}
    </div>
  );
}

const TONES = {
  gray: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-200",
  green: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200",
  red: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200",
  yellow: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  blue: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
} as const;
export type Tone = keyof typeof TONES;

export function Badge({ tone = "gray", children }: { tone?: Tone; children: ReactNode }) {
  return (
    <span className={cx("inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium", TONES[tone])}>
      {children}
    </span>
  );
}

/** A status word with a colour that fits it (verified/delivered green, failed/bounced red, ...). */
export function StatusBadge({ status }: { status: string }) {
  const tone: Tone = /^(verified|delivered|active|succeeded|completed|received|sent|accepted|closed|success|ok)$/.test(
    status,
  )
    ? "green"
    : /^(failed|bounced|complained|rejected|revoked|error|open|deleted|cancelled)$/.test(status)
      ? "red"
      : /^(pending|queued|scheduled|paused|running|sleeping|waiting|half_open|delayed|not_started)$/.test(status)
        ? "yellow"
        : "gray";
  return <Badge tone={tone}>{status.replace(/_/g, " ")}</Badge>;
}

/** An HTTP status code: succeeded green, refused (4xx) yellow, failed (5xx) red. */
export function HttpStatusBadge({ status }: { status: number }) {
  const tone: Tone =
    status >= 500 ? "red" : status >= 400 ? "yellow" : status >= 200 && status < 300 ? "green" : "gray";
  return <Badge tone={tone}>{status}</Badge>;
}

/** A message's derived delivery status (lib/messages/delivery-status.ts): the primary badge of a message. */
export function DeliveryStatusBadge({ status }: { status: DeliveryStatus }) {
  return (
    <span data-testid="delivery-status" title={DELIVERY_STATUS_LABELS[status]}>
      <Badge tone={DELIVERY_TONES[status]}>{status}</Badge>
    </span>
  );
}

/** The page a role may not open: its heading (when `title` is given) and the notice. */
export function NoAccess({ what, title }: { what: string; title?: string }) {
  const notice = (
    <div
      role="alert"
      className="rounded-lg border border-amber-300 bg-amber-50 px-6 py-10 text-center dark:border-amber-800 dark:bg-amber-950"
    >
      <p className="text-base font-semibold">You don&apos;t have access to {what}</p>
      <p className="mt-1 text-sm text-zinc-700 dark:text-zinc-300">
        Your role in this organization does not allow it. Ask an owner or admin.
      </p>
    </div>
  );
  return title ? (
    <>
      <PageHeader title={title} />
      {notice}
    </>
  ) : (
    notice
  );
}

export function ErrorNotice({ children }: { children: ReactNode }) {
  return (
    <p
      role="alert"
      className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
    >
      {children}
    </p>
  );
}

/** A timestamp in the viewer's zone, relative while recent, the absolute time on hover (`LocalTime`). */
export function Time({ value }: { value: string | Date | null | undefined }) {
  if (!value) return <span className="text-zinc-600 dark:text-zinc-400">—</span>;
  return <LocalTime iso={(typeof value === "string" ? new Date(value) : value).toISOString()} />;
}

/** Newer/older links for keyset-paginated lists (the cursor lives in the URL). */
export function Pager({ nextHref, firstHref }: { nextHref: string | null; firstHref: string | null }) {
  if (!nextHref && !firstHref) return null;
  return (
    <nav aria-label="Pagination" className="mt-4 flex justify-between text-sm">
      {firstHref ? (
        <Link className="link" href={firstHref}>
          ← Newest
        </Link>
      ) : (
        <span />
      )}
      {nextHref ? (
        <Link className="link" href={nextHref}>
          Older →
        </Link>
      ) : null}
    </nav>
  );
}

/**
 * An email address (or a list of them) that wraps only before an `@` or after a separator, never
 * inside a word: a part too long for its column is cut with an ellipsis, the whole value on hover.
 */
export function Address({ value, mono = false }: { value: string; mono?: boolean }) {
  const parts = value.split(/(?=@)|(?<=,\s)/);
  return (
    <span
      title={value}
      className={cx(
        "block max-w-full overflow-hidden text-ellipsis [overflow-wrap:normal] [word-break:normal]",
        mono && "font-mono text-xs",
      )}
      data-testid="address"
    >
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </span>
  );
}

export function Mono({ children }: { children: ReactNode }) {
  return (
    <code className="rounded bg-zinc-100 px-1 py-0.5 font-mono text-xs break-all dark:bg-zinc-800">{children}</code>
  );
}

/** A definition list of label/value pairs (detail pages). */
export function Details({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-[max-content_1fr]">
      {items.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="font-medium text-zinc-600 dark:text-zinc-400">{k}</dt>
          <dd className="min-w-0 break-words">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * A usage bar: a native `<progress>` named by its label, with the numbers in words beside it
 * ("7 of 10 recipients"). Green below 80%, amber from 80%, red when `over` (the limit is reached).
 * A limit of 0 shows as a full bar.
 */
export function UsageBar({
  label,
  used,
  limit,
  unit,
  over,
}: {
  label: string;
  used: number;
  limit: number;
  unit: string;
  over?: boolean;
}) {
  const id = useId();
  const ratio = limit > 0 ? used / limit : 1;
  const fill = over || ratio >= 1 ? "red" : ratio >= 0.8 ? "amber" : "green";
  const bar = {
    green: "[&::-webkit-progress-value]:bg-emerald-600 [&::-moz-progress-bar]:bg-emerald-600",
    amber: "[&::-webkit-progress-value]:bg-amber-500 [&::-moz-progress-bar]:bg-amber-500",
    red: "[&::-webkit-progress-value]:bg-red-600 [&::-moz-progress-bar]:bg-red-600",
  }[fill];
  return (
    <div className="w-full min-w-40 space-y-1">
      <div className="flex flex-wrap justify-between gap-x-2 text-xs">
        <span id={`${id}-label`} className="text-zinc-600 dark:text-zinc-400">
          {label}
        </span>
        <span id={`${id}-value`} className={over ? "font-semibold text-red-700 dark:text-red-400" : undefined}>
          {used.toLocaleString("en-US")} of {limit.toLocaleString("en-US")} {unit}
        </span>
      </div>
      <progress
        value={limit > 0 ? Math.min(used, limit) : 1}
        max={limit > 0 ? limit : 1}
        aria-labelledby={`${id}-label`}
        aria-describedby={`${id}-value`}
        className={cx(
          "block h-2 w-full appearance-none overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800 [&::-webkit-progress-bar]:bg-zinc-200 dark:[&::-webkit-progress-bar]:bg-zinc-800",
          bar,
        )}
      />
    </div>
  );
}
