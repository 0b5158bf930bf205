"use client";

import Link from "next/link";
import { useSyncExternalStore } from "react";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { DeliveryVolume, Outcome } from "@/lib/console/overview";
import { DELIVERY_STATUS_LABELS } from "@/lib/messages/delivery-status";
import { cx } from "../ui";

/**
 * The Overview's delivery volume: outbound messages per hour or day, stacked by delivery status,
 * drawn by Recharts with tooltips. The chart is decoration for assistive technology (`aria-hidden`,
 * Recharts' keyboard layer off); the same figures are in the legend (totals) and the data table.
 * Hour buckets read in the viewer's time zone once hydrated; day buckets are UTC days.
 */

/** Stacking order (bottom first) and each outcome's colour, light and dark, as a CSS variable. */
const SERIES: { outcome: Outcome; vars: string }[] = [
  { outcome: "delivered", vars: "[--vol-delivered:#059669] dark:[--vol-delivered:#34d399]" },
  { outcome: "sent", vars: "[--vol-sent:#0284c7] dark:[--vol-sent:#38bdf8]" },
  { outcome: "delayed", vars: "[--vol-delayed:#d97706] dark:[--vol-delayed:#fbbf24]" },
  { outcome: "bounced", vars: "[--vol-bounced:#dc2626] dark:[--vol-bounced:#f87171]" },
  { outcome: "complained", vars: "[--vol-complained:#a21caf] dark:[--vol-complained:#e879f9]" },
  { outcome: "failed", vars: "[--vol-failed:#9a3412] dark:[--vol-failed:#fb923c]" },
  { outcome: "queued", vars: "[--vol-queued:#71717a] dark:[--vol-queued:#a1a1aa]" },
  { outcome: "scheduled", vars: "[--vol-scheduled:#7c3aed] dark:[--vol-scheduled:#a78bfa]" },
  { outcome: "canceled", vars: "[--vol-canceled:#d4d4d8] dark:[--vol-canceled:#52525b]" },
];
const color = (o: Outcome) => `var(--vol-${o})`;

const noop = () => () => {};
/** False on the server and during hydration, true after: local times only once in the browser. */
const useHydrated = () =>
  useSyncExternalStore(
    noop,
    () => true,
    () => false,
  );

type Bucket = DeliveryVolume["bucket"];

/** The short label of a bucket (axis ticks) and its long label (tooltip, table rows). */
function labels(bucket: Bucket, local: boolean) {
  const timeZone = bucket === "day" || !local ? "UTC" : undefined;
  const short = new Intl.DateTimeFormat(
    "en",
    bucket === "hour"
      ? { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone }
      : { month: "short", day: "numeric", timeZone },
  );
  const long = new Intl.DateTimeFormat(
    "en",
    bucket === "hour"
      ? {
          weekday: "short",
          month: "short",
          day: "numeric",
          hour: "2-digit",
          minute: "2-digit",
          hourCycle: "h23",
          timeZone,
          timeZoneName: "short",
        }
      : { weekday: "short", month: "short", day: "numeric", year: "numeric", timeZone },
  );
  return { short: (iso: string) => short.format(new Date(iso)), long: (iso: string) => long.format(new Date(iso)) };
}

interface TipProps {
  active?: boolean;
  label?: string | number;
  payload?: readonly { dataKey?: unknown; value?: unknown }[];
  format: (iso: string) => string;
}

function VolumeTooltip({ active, label, payload, format }: TipProps) {
  if (!active || !payload?.length || typeof label !== "string") return null;
  const rows = payload.filter((p) => Number(p.value) > 0);
  const total = rows.reduce((n, p) => n + Number(p.value), 0);
  return (
    <div className="rounded-md border border-zinc-200 bg-white px-3 py-2 text-xs shadow-md dark:border-zinc-700 dark:bg-zinc-900">
      <p className="mb-1 font-semibold">{format(label)}</p>
      {rows.length === 0 ? <p className="text-zinc-600 dark:text-zinc-400">No messages</p> : null}
      <ul className="space-y-0.5">
        {rows.map((p) => (
          <li key={String(p.dataKey)} className="flex items-center gap-2">
            <span className="inline-block size-2.5 rounded-sm" style={{ background: color(p.dataKey as Outcome) }} />
            <span className="flex-1">{DELIVERY_STATUS_LABELS[p.dataKey as Outcome]}</span>
            <span className="tabular-nums">{String(p.value)}</span>
          </li>
        ))}
      </ul>
      {rows.length > 1 ? (
        <p className="mt-1 border-t border-zinc-200 pt-1 text-right tabular-nums dark:border-zinc-700">
          {total} in all
        </p>
      ) : null}
    </div>
  );
}

export function VolumeChart({ volume, rangeLabel }: { volume: DeliveryVolume; rangeLabel: string }) {
  const hydrated = useHydrated();
  const { short, long } = labels(volume.bucket, hydrated);
  const shown = SERIES.filter((s) => volume.totals[s.outcome] > 0);
  const total = shown.reduce((n, s) => n + volume.totals[s.outcome], 0);
  const data = volume.buckets.map((b) => ({ start: b.start, ...b.counts }));
  const per = volume.bucket === "hour" ? "hour" : "day (UTC)";
  return (
    <figure data-testid="overview-volume" className={cx(...SERIES.map((s) => s.vars))}>
      <figcaption className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
        {total} outbound {total === 1 ? "message" : "messages"} in the last {rangeLabel}, per {per}, by what became of
        them.
      </figcaption>
      <ul className="mb-3 flex flex-wrap gap-x-4 gap-y-1 text-sm" aria-label="Totals by outcome">
        {shown.map((s) => (
          <li key={s.outcome} className="flex items-center gap-1.5">
            <span aria-hidden className="inline-block size-3 rounded-sm" style={{ background: color(s.outcome) }} />
            <Link className="link" href={`/messages?direction=outbound&status=${s.outcome}`}>
              {DELIVERY_STATUS_LABELS[s.outcome]}
            </Link>
            <span className="tabular-nums">{volume.totals[s.outcome]}</span>
          </li>
        ))}
      </ul>
      <div
        aria-hidden
        className="h-56 w-full min-w-0 text-xs text-zinc-600 dark:text-zinc-400"
        data-testid="overview-volume-chart"
      >
        {hydrated ? (
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={data} accessibilityLayer={false} margin={{ top: 4, right: 4, bottom: 0, left: -16 }}>
              <CartesianGrid vertical={false} stroke="currentColor" strokeOpacity={0.15} />
              <XAxis
                dataKey="start"
                tickFormatter={short}
                tick={{ fill: "currentColor" }}
                stroke="currentColor"
                strokeOpacity={0.4}
                minTickGap={12}
                tickMargin={4}
              />
              <YAxis
                allowDecimals={false}
                tick={{ fill: "currentColor" }}
                stroke="currentColor"
                strokeOpacity={0.4}
                width={48}
              />
              <Tooltip
                cursor={{ fill: "currentColor", fillOpacity: 0.08 }}
                content={(p) => <VolumeTooltip active={p.active} label={p.label} payload={p.payload} format={long} />}
              />
              {shown.map((s) => (
                <Bar
                  key={s.outcome}
                  dataKey={s.outcome}
                  stackId="volume"
                  fill={color(s.outcome)}
                  isAnimationActive={false}
                />
              ))}
            </BarChart>
          </ResponsiveContainer>
        ) : null}
      </div>
      <details className="mt-3 text-sm">
        <summary className="cursor-pointer text-zinc-700 dark:text-zinc-300">The figures as a table</summary>
        <div tabIndex={0} role="region" aria-label="Delivery volume table" className="mt-2 max-h-80 overflow-auto">
          <table className="w-full text-left tabular-nums" data-testid="overview-volume-table">
            <caption className="sr-only">
              Outbound messages per {per} by outcome, last {rangeLabel}
            </caption>
            <thead className="text-xs text-zinc-600 dark:text-zinc-300">
              <tr>
                <th scope="col" className="py-1 pr-3 font-semibold">
                  {volume.bucket === "hour" ? "Hour" : "Day (UTC)"}
                </th>
                {shown.map((s) => (
                  <th key={s.outcome} scope="col" className="py-1 pr-3 font-semibold">
                    {DELIVERY_STATUS_LABELS[s.outcome]}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
              {volume.buckets.map((b) => (
                <tr key={b.start}>
                  <th scope="row" className="py-1 pr-3 font-normal whitespace-nowrap">
                    {long(b.start)}
                  </th>
                  {shown.map((s) => (
                    <td key={s.outcome} className="py-1 pr-3">
                      {b.counts[s.outcome]}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
