"use client";

import { type ReactNode, useId, useState } from "react";
import { cx } from "./ui";

/**
 * The console's sidebar: always shown from the `md` breakpoint up; below it a top bar with the
 * product's name and a Menu button that opens the rest (organization, pages, account), so the
 * page itself starts on the first screen of a phone. Following a link closes it.
 */
export function Sidebar({ brand, children }: { brand: ReactNode; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <aside className="w-full shrink-0 border-b border-zinc-200 bg-zinc-50 p-4 md:w-60 md:border-r md:border-b-0 dark:border-zinc-800 dark:bg-zinc-900">
      <div className="flex items-center justify-between gap-3">
        {brand}
        <button
          type="button"
          aria-expanded={open}
          aria-controls={id}
          onClick={() => setOpen((o) => !o)}
          className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium focus-visible:ring-2 focus-visible:ring-zinc-900 focus-visible:outline-none md:hidden dark:border-zinc-700"
        >
          {open ? "Close menu" : "Menu"}
        </button>
      </div>
      <div
        id={id}
        className={cx("mt-6 space-y-6 md:block", open ? "block" : "hidden")}
        onClick={(e) => {
          if (e.target instanceof Element && e.target.closest("a")) setOpen(false);
        }}
      >
        {children}
      </div>
    </aside>
  );
}
