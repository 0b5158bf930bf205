import { and, type Column, eq, lt, or, type SQL } from "drizzle-orm";
import { z } from "zod";
import { dateTimeInput } from "./datetime";
import { invalidRequest } from "./errors";

/** Query fields of every paginated list: `limit` 1..100 (default 25) and an opaque `cursor`. */
export const paginationQuery = (defaultLimit = 25) => ({
  limit: z.coerce.number().int().min(1).max(100).default(defaultLimit),
  cursor: z.string().min(1).max(512).optional(),
});

export const paginationSchema = z.object({
  nextCursor: z.string().nullable(),
  hasMore: z.boolean(),
});
export type Pagination = z.infer<typeof paginationSchema>;

/** Keyset position: the sort timestamp and id of the last row of the previous page. */
const keysetSchema = z.object({ t: dateTimeInput({}), id: z.uuid() });
export type Keyset = { createdAt: Date; id: string };

export function encodeCursor(k: Keyset): string {
  return Buffer.from(JSON.stringify({ t: k.createdAt.toISOString(), id: k.id })).toString("base64url");
}

export function decodeCursor(cursor: string | undefined, param = "cursor"): Keyset | null {
  if (cursor === undefined) return null;
  try {
    const parsed = keysetSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    return { createdAt: new Date(parsed.t), id: parsed.id };
  } catch {
    throw invalidRequest("The cursor is not valid; pass a nextCursor value from a previous page.", param);
  }
}

/**
 * Turns `limit + 1` fetched rows into one page. Keyset pagination (not offset): rows inserted
 * while a client pages never shift or repeat the rows it has not seen yet.
 */
export function toPage<T extends Keyset>(rows: T[], limit: number): { items: T[]; pagination: Pagination } {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, pagination: { nextCursor: hasMore && last ? encodeCursor(last) : null, hasMore } };
}

/** Rows strictly after `after` in a newest-first `(sort, id)` keyset; undefined on the first page. */
export function keysetBefore(sort: Column, id: Column, after: Keyset | null): SQL | undefined {
  return after ? or(lt(sort, after.createdAt), and(eq(sort, after.createdAt), lt(id, after.id))) : undefined;
}
