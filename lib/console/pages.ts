import { notFound } from "next/navigation";
import { z } from "zod";
import { ApiError } from "@/lib/core/errors";

/** What Next passes a page as `searchParams` (once awaited). */
export type SearchParams = Record<string, string | string[] | undefined>;

/** Lists in the console show this many rows per page. */
export const PAGE_SIZE = 50;

/** One query parameter as a trimmed string; absent, empty and repeated values give undefined. */
export function param(sp: SearchParams, name: string): string | undefined {
  const value = sp[name];
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** A console URL with a query string built from the defined, non-empty values. */
export function hrefWith(path: string, query: Record<string, string | undefined>): string {
  const qs = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value) qs.set(key, value);
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

/** The newest-page and next-page links of a keyset list whose filters live in the URL. */
export function pagerLinks(
  path: string,
  filters: Record<string, string | undefined>,
  cursor: string | undefined,
  nextCursor: string | null,
) {
  return {
    nextHref: nextCursor ? hrefWith(path, { ...filters, cursor: nextCursor }) : null,
    firstHref: cursor ? hrefWith(path, filters) : null,
  };
}

/** A list read that may fail on a bad cursor or filter from the URL: the data, or the API's message to show. */
export async function readList<T>(
  read: () => Promise<T>,
): Promise<{ ok: true; data: T } | { ok: false; message: string }> {
  try {
    return { ok: true, data: await read() };
  } catch (err) {
    if (err instanceof ApiError && err.code === "invalid_request") return { ok: false, message: err.message };
    throw err;
  }
}

/** Reads one resource by the id in the URL; a malformed id or a missing resource is the 404 page. */
export async function readOne<T>(id: string, read: (id: string) => Promise<T>): Promise<T> {
  if (!z.uuid().safeParse(id).success) notFound();
  try {
    return await read(id);
  } catch (err) {
    if (err instanceof ApiError && err.code === "resource_not_found") notFound();
    throw err;
  }
}
