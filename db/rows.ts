import {
  type Column,
  getTableColumns,
  type InferInsertModel,
  type InferSelectModel,
  type SQL,
  sql,
  type Table,
} from "drizzle-orm";
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

/**
 * A multi-row INSERT of `rows` (each with the same keys: the table's property names) whose values
 * go as one JSON parameter read by `jsonb_to_recordset`, instead of one bound parameter per value:
 * drizzle's builder checks and maps every value (a few hundred rows of a wide table cost more to
 * build than to run), and one parameter is sent and parsed once. Columns not named in the rows take
 * their defaults. Timestamps go as ISO strings, `bytea` as hex, JSON and arrays as themselves.
 */
export function insertJsonRows<T extends Table>(table: T, rows: Partial<InferInsertModel<T>>[]): SQL {
  const first = rows[0];
  if (!first) throw new Error("insertJsonRows needs at least one row");
  const all = getTableColumns(table) as Record<string, Column>;
  // The named columns, and those with a default made in JavaScript (`$defaultFn`, as drizzle would).
  const keys = Object.keys(all).filter((k) => k in first || (all[k] as Column).defaultFn);
  const columns = keys.map((k) => all[k] as Column);
  const names = columns.map((c) => sql.identifier(casing.getColumnCasing(c)));
  const json = JSON.stringify(
    rows.map((row) =>
      Object.fromEntries(
        columns.map((c, i) => {
          const given = (row as Record<string, unknown>)[keys[i] as string];
          return [casing.getColumnCasing(c), jsonValue(c, given === undefined && c.defaultFn ? c.defaultFn() : given)];
        }),
      ),
    ),
  );
  const types = sql.join(
    columns.map((c, i) => sql`${names[i]} ${sql.raw(c.getSQLType())}`),
    sql`, `,
  );
  return sql`insert into ${table} (${sql.join(names, sql`, `)}) select ${sql.join(names, sql`, `)} from jsonb_to_recordset(${json}::jsonb) as r(${types})`;
}

function jsonValue(column: Column, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return `\\x${value.toString("hex")}`;
  const type = column.getSQLType();
  if (type === "jsonb" || type === "json" || Array.isArray(value)) return value;
  return column.mapToDriverValue(value);
}
