import { type Column, getTableColumns, type InferSelectModel, type Table } from "drizzle-orm";
import { CasingCache } from "drizzle-orm/casing";

const casing = new CasingCache("snake_case");

/**
 * A table's row from a raw result row (`db.execute` of a statement drizzle did not build, such as
 * one with data-modifying CTEs whose main query is `select * from` one of them): each column's
 * value by its snake_case name, through the column's own decoder (timestamps to `Date`, JSON
 * parsed, integers from text), as drizzle maps the rows of the queries it builds.
 */
export function rowOf<T extends Table>(table: T, raw: Record<string, unknown>): InferSelectModel<T> {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table)) as [string, Column][]) {
    const value = raw[casing.getColumnCasing(column)];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as InferSelectModel<T>;
}
