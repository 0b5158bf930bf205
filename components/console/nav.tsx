"use client";

import Link, { useLinkStatus } from "next/link";
import { usePathname } from "next/navigation";
import { cx } from "./ui";

export interface NavItem {
  href: string;
  label: string;
}

/** The sidebar's page links; the current section is marked for sighted and screen-reader users. */
export function Nav({ items }: { items: NavItem[] }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Console">
      <ul className="space-y-0.5">
        {items.map((item) => {
          const active =
            item.href === "/" ? pathname === "/" : pathname === item.href || pathname.startsWith(`${item.href}/`);
          return (
            <li key={item.href}>
              <Link
                href={item.href}
                aria-current={active ? "page" : undefined}
                className={cx(
                  "block rounded-md px-2 py-1.5 text-sm focus-visible:ring-2 focus-visible:ring-zinc-900 focus-visible:outline-none",
                  active
                    ? "bg-zinc-900 font-medium text-white dark:bg-zinc-100 dark:text-zinc-900"
                    : "text-zinc-700 hover:bg-zinc-200 dark:text-zinc-300 dark:hover:bg-zinc-800",
                )}
              >
                {item.label}
                <Pending />
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** A spinner beside the link being opened while its page loads (the console has no loading screens, so a missing id answers 404). */
function Pending() {
  const { pending } = useLinkStatus();
  return pending ? (
    <span
      role="status"
      aria-label="Loading"
      className="ml-2 inline-block size-3 animate-spin rounded-full border-2 border-current border-t-transparent align-middle"
    />
  ) : null;
}
