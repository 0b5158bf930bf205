import type { ReactNode } from "react";
import type { readList } from "@/lib/console/pages";
import { ErrorNotice, Pager } from "./ui";

type ListRead<T> = Awaited<ReturnType<typeof readList<T>>>;

/**
 * The scaffolding every paged list page repeats: a read that may have failed (a bad filter or
 * cursor: the API's message), no rows (the page's empty state), else the rows (a `Table` or the
 * stacked cards below 640 px) and the pager. Pages give the read, how to take the rows and the
 * next cursor from its data, and how to show them.
 */
export function PagedList<T, R>({
  read,
  rows,
  nextCursor,
  pagerHref,
  empty,
  children,
}: {
  read: ListRead<T>;
  rows: (data: T) => readonly R[];
  nextCursor: (data: T) => string | null;
  /** The pager's links for a next cursor (`pagerLinks(path, filters, cursor, next)`). */
  pagerHref: (next: string | null) => { nextHref: string | null; firstHref: string | null };
  empty: ReactNode;
  children: (rows: readonly R[]) => ReactNode;
}) {
  if (!read.ok) return <ErrorNotice>{read.message}</ErrorNotice>;
  const items = rows(read.data);
  if (items.length === 0) return <>{empty}</>;
  return (
    <>
      {children(items)}
      <Pager {...pagerHref(nextCursor(read.data))} />
    </>
  );
}
