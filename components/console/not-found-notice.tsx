import Link from "next/link";

/** The branded "not found" of the console and of unknown URLs (Next answers it with HTTP 404). */
export function NotFoundNotice() {
  return (
    <div className="mx-auto max-w-md space-y-3 py-16 text-center">
      <p className="text-sm font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
        svc console · 404
      </p>
      <h1 className="text-2xl font-semibold tracking-tight">Nothing here</h1>
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        This page does not exist, or what it shows was deleted or belongs to another organization.
      </p>
      <p className="text-sm">
        <Link className="link" href="/">
          Go to the overview
        </Link>
      </p>
    </div>
  );
}
