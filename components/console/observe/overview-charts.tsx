import Link from "next/link";
import type { ReactNode } from "react";

/** The Overview's counts (the delivery volume chart is ./volume-chart.tsx). */

/** One count with its label, linking to the page that manages it. */
export function Stat({
  label,
  value,
  detail,
  href,
  testId,
}: {
  label: string;
  value: ReactNode;
  detail?: ReactNode;
  href?: string;
  testId?: string;
}) {
  return (
    <div
      className="rounded-lg border border-zinc-200 bg-white p-4 shadow-sm dark:border-zinc-800 dark:bg-zinc-900"
      data-testid={testId}
    >
      <dt className="text-sm font-medium text-zinc-600 dark:text-zinc-400">
        {href ? (
          <Link href={href} className="hover:underline">
            {label}
          </Link>
        ) : (
          label
        )}
      </dt>
      <dd className="mt-1 text-2xl font-semibold tabular-nums">{value}</dd>
      {detail ? <dd className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">{detail}</dd> : null}
    </div>
  );
}
