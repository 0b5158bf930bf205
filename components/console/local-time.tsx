"use client";

import { useSyncExternalStore } from "react";

/** One clock for every timestamp on the page, ticking every 30 s (relative times stay current). */
let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, 30_000);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86_400_000],
  ["month", 30 * 86_400_000],
  ["week", 7 * 86_400_000],
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

/** "3 min ago", "in 2 hours", "just now". */
export function relativeTime(date: Date, from: number): string {
  const diff = date.getTime() - from;
  if (Math.abs(diff) < 45_000) return "just now";
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto", style: "short" });
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms || unit === "minute") return rtf.format(Math.round(diff / ms), unit);
  }
  return rtf.format(Math.round(diff / 60_000), "minute");
}

const ABSOLUTE = { dateStyle: "medium", timeStyle: "long" } as const;
const SHORT = { dateStyle: "medium", timeStyle: "short" } as const;

/**
 * A timestamp in the viewer's time zone: relative while recent ("3 min ago"), the local date and
 * time once older than a week, and the full local time with its zone (plus UTC) on hover. The
 * server renders UTC, labelled, which the browser replaces after hydration.
 */
export function LocalTime({ iso }: { iso: string }) {
  const current = useSyncExternalStore(
    subscribe,
    () => now,
    () => null,
  );
  const date = new Date(iso);
  if (current === null) {
    return (
      <time dateTime={iso} title={iso} className="whitespace-nowrap tabular-nums">
        {iso.slice(0, 16).replace("T", " ")} UTC
      </time>
    );
  }
  const recent = Math.abs(current - date.getTime()) < 7 * 86_400_000;
  return (
    <time
      dateTime={iso}
      title={`${date.toLocaleString(undefined, ABSOLUTE)} (${iso.slice(0, 19).replace("T", " ")} UTC)`}
      className="whitespace-nowrap tabular-nums"
    >
      {recent ? relativeTime(date, current) : date.toLocaleString(undefined, SHORT)}
    </time>
  );
}
