import { useId } from "react";

export interface BroadcastCounts {
  total: number;
  sent: number;
  failed: number;
  suppressed: number;
  pending: number;
}

/** A broadcast's progress in a list row: a bar of its finished members and the counts in words. */
export function BroadcastBar({ counts }: { counts: BroadcastCounts }) {
  const id = useId();
  const { total, sent, failed, suppressed } = counts;
  const finished = sent + failed + suppressed;
  return (
    <div className="space-y-1">
      <progress
        className="block h-2 w-full"
        max={Math.max(total, 1)}
        value={total === 0 ? 1 : finished}
        aria-labelledby={`${id}-words`}
      />
      <span
        id={`${id}-words`}
        className="block text-xs text-zinc-700 dark:text-zinc-300"
        data-testid="broadcast-counts"
      >
        {sent.toLocaleString("en-US")} sent · {failed.toLocaleString("en-US")} failed
        {suppressed > 0 ? ` · ${suppressed.toLocaleString("en-US")} suppressed` : ""} of {total.toLocaleString("en-US")}
      </span>
    </div>
  );
}
