"use client";

/** A console page failed to load: say so plainly and offer a retry (details are in the server log). */
export default function ConsoleError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="rounded-lg border border-red-300 bg-red-50 p-6 dark:border-red-900 dark:bg-red-950">
      <h1 className="text-lg font-semibold">This page could not be loaded</h1>
      <p className="mt-1 text-sm">
        Something went wrong on the server.{error.digest ? ` Reference: ${error.digest}.` : ""}
      </p>
      <button
        type="button"
        onClick={reset}
        className="mt-4 rounded-md bg-zinc-900 px-3 py-2 text-sm font-medium text-white dark:bg-zinc-100 dark:text-zinc-900"
      >
        Try again
      </button>
    </div>
  );
}
