import Link from "next/link";
import type { ReactNode } from "react";
import type { DayCount, Outcome } from "@/lib/console/overview";
import { DELIVERY_STATUS_LABELS } from "@/lib/messages/delivery-status";
import { EmptyState } from "../ui";

/**
 * The Overview's figures, drawn server-side with CSS bars (no chart library). Bars are decoration
 * (`aria-hidden`); every figure also carries its numbers as text or a visually hidden table.
 */

/** One count with its label, linking to the page that manages it. */
export function Stat({ label, value, detail, href, testId }: { label: string; value: ReactNode; detail?: ReactNode; href?: string; testId?: string }) {
  return (
    <div className="rounded-lg border border-zinc-200 bg-white p-4 shadow-sm dark:border-zinc-800 dark:bg-zinc-900" data-testid={testId}>
      <dt className="text-sm font-medium text-zinc-600 dark:text-zinc-400">{href ? <Link href={href} className="hover:underline">{label}</Link> : label}</dt>
      <dd className="mt-1 text-2xl font-semibold tabular-nums">{value}</dd>
      {detail ? <dd className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">{detail}</dd> : null}
    </div>
  );
}

const INBOUND_BAR = "bg-sky-700 dark:bg-sky-400";
/** Outbound bars are hatched as well as coloured, so the two series differ without colour too. */
const OUTBOUND_BAR = "bg-emerald-600 bg-[repeating-linear-gradient(45deg,transparent_0_3px,rgb(255_255_255/0.45)_3px_5px)] dark:bg-emerald-400";

function Swatch({ className }: { className: string }) {
  return <span aria-hidden className={`inline-block size-3 rounded-sm border border-zinc-400 ${className}`} />;
}

const pct = (value: number, max: number) => (max === 0 ? 0 : Math.max(value > 0 ? 2 : 0, Math.round((value / max) * 100)));

/** Inbound and outbound messages per day, as paired bars with a legend and an accessible table. */
export function MessagesPerDayChart({ days }: { days: DayCount[] }) {
  const max = Math.max(0, ...days.map((d) => Math.max(d.inbound, d.outbound)));
  const totalIn = days.reduce((n, d) => n + d.inbound, 0);
  const totalOut = days.reduce((n, d) => n + d.outbound, 0);
  return (
    <figure data-testid="overview-messages-chart">
      <figcaption className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
        Messages per day over the last {days.length} days (UTC): {totalIn} inbound, {totalOut} outbound.
      </figcaption>
      <ul className="mb-3 flex gap-4 text-xs text-zinc-700 dark:text-zinc-300" aria-label="Legend">
        <li className="flex items-center gap-1.5">
          <Swatch className={INBOUND_BAR} /> Inbound (solid)
        </li>
        <li className="flex items-center gap-1.5">
          <Swatch className={OUTBOUND_BAR} /> Outbound (hatched)
        </li>
      </ul>
      <div aria-hidden className="flex h-40 items-end gap-1 border-b border-zinc-300 dark:border-zinc-700">
        {days.map((d) => (
          <div key={d.day} className="flex h-full flex-1 items-end justify-center gap-px" title={`${d.day}: ${d.inbound} in, ${d.outbound} out`}>
            <div className={`w-1/2 max-w-4 rounded-t-sm ${INBOUND_BAR}`} style={{ height: `${pct(d.inbound, max)}%` }} />
            <div className={`w-1/2 max-w-4 rounded-t-sm ${OUTBOUND_BAR}`} style={{ height: `${pct(d.outbound, max)}%` }} />
          </div>
        ))}
      </div>
      <div aria-hidden className="mt-1 flex gap-1 text-[10px] text-zinc-600 tabular-nums dark:text-zinc-400">
        {days.map((d, i) => (
          <span key={d.day} className="flex-1 text-center">
            {i % 2 === days.length % 2 ? "" : d.day.slice(5)}
          </span>
        ))}
      </div>
      <table className="sr-only">
        <caption>Messages per day</caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            <th scope="col">Inbound</th>
            <th scope="col">Outbound</th>
          </tr>
        </thead>
        <tbody>
          {days.map((d) => (
            <tr key={d.day}>
              <th scope="row">{d.day}</th>
              <td>{d.inbound}</td>
              <td>{d.outbound}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

const OUTCOME_LABELS: Record<Outcome, string> = DELIVERY_STATUS_LABELS;

const OUTCOME_BARS: Record<Outcome, string> = {
  delivered: "bg-emerald-600",
  sent: "bg-sky-600",
  delayed: "bg-amber-500",
  bounced: "bg-red-600",
  complained: "bg-red-800",
  failed: "bg-red-500",
  queued: "bg-zinc-500",
  scheduled: "bg-zinc-400",
  canceled: "bg-zinc-300",
};

/** Outbound messages by outcome: each row names the outcome and its count in text; the bar shows the share. */
export function OutcomesChart({ outcomes, days }: { outcomes: { outcome: Outcome; count: number }[]; days: number }) {
  const total = outcomes.reduce((n, o) => n + o.count, 0);
  const shown = outcomes.filter((o) => o.count > 0);
  if (total === 0) return <EmptyState title={`No outbound messages in the last ${days} days`} description="Delivered, bounced, complained and failed sends are counted here." />;
  return (
    <figure data-testid="overview-outcomes">
      <figcaption className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
        What became of the {total} outbound messages of the last {days} days.
      </figcaption>
      <ul className="space-y-2">
        {shown.map((o) => {
          const share = Math.round((o.count / total) * 100);
          return (
            <li key={o.outcome} className="grid grid-cols-[10rem_1fr_5rem] items-center gap-3 text-sm">
              <Link className="link" href={`/messages?direction=outbound&status=${o.outcome}`}>
                {OUTCOME_LABELS[o.outcome]}
              </Link>
              <span aria-hidden className="h-3 rounded-sm bg-zinc-100 dark:bg-zinc-800">
                <span className={`block h-3 rounded-sm ${OUTCOME_BARS[o.outcome]}`} style={{ width: `${Math.max(1, share)}%` }} />
              </span>
              <span className="text-right tabular-nums">
                {o.count} <span className="text-xs text-zinc-600 dark:text-zinc-400">({share}%)</span>
              </span>
            </li>
          );
        })}
      </ul>
    </figure>
  );
}
