import {
  type Column,
  getTableColumns,
  type InferInsertModel,
  type InferSelectModel,
  type SQL,
  sql,
  type Table,
  getTableName,
} from "drizzle-orm";
import { CasingCache } from "drizzle-orm/casing";

const casing = new CasingCache("snake_case");

/** A table's columns as `rowOf` reads them: property name, column, snake_case name (once per table). */
const readers = new WeakMap<Table, [string, Column, string][]>();

/**
 * A table's row from a raw result row (`db.execute` of a statement drizzle did not build, such as
 * one with data-modifying CTEs whose main query is `select * from` one of them): each column's
 * value by its snake_case name, through the column's own decoder (timestamps to `Date`, JSON
 * parsed, integers from text), as drizzle maps the rows of the queries it builds.
 */
export function rowOf<T extends Table>(table: T, raw: Record<string, unknown>): InferSelectModel<T> {
  let columns = readers.get(table);
  if (!columns) {
    columns = (Object.entries(getTableColumns(table)) as [string, Column][]).map(([key, column]) => [
      key,
      column,
      casing.getColumnCasing(column),
    ]);
    readers.set(table, columns);
  }
  const out: Record<string, unknown> = {};
  for (const [key, column, name] of columns) {
    const value = raw[name];
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
  const shape = jsonRows(table, rows);
  return shape.insert(shape.json(rows));
}

/**
 * The shape of an `insertJsonRows` statement for rows with the keys of `rows[0]`: `insert(param)`
 * is its SQL with the JSON as `param` (a value, or a `sql.placeholder` of a statement built once:
 * db/compiled.ts), `json(rows)` the parameter, and `key` names the shape (its columns). Kept per
 * table and set of keys, so the columns, their names and encoders are worked out once.
 */
export function jsonRows<T extends Table>(table: T, rows: Partial<InferInsertModel<T>>[]): JsonRows<T> {
  const first = rows[0];
  if (!first) throw new Error("insertJsonRows needs at least one row");
  const given = Object.keys(first).join(",");
  let byKeys = shapes.get(table);
  if (!byKeys) shapes.set(table, (byKeys = new Map<string, JsonRows<Table>>()));
  let shape = byKeys.get(given) as JsonRows<T> | undefined;
  if (!shape) {
    shape = makeJsonRows(table, first);
    byKeys.set(given, shape);
  }
  return shape;
}

export interface JsonRows<T extends Table> {
  key: string;
  insert(param: unknown): SQL;
  json(rows: Partial<InferInsertModel<T>>[]): string;
}

const shapes = new WeakMap<Table, Map<string, JsonRows<Table>>>();

function makeJsonRows<T extends Table>(table: T, first: Partial<InferInsertModel<T>>): JsonRows<T> {
  const all = getTableColumns(table) as Record<string, Column>;
  // The named columns, and those with a default made in JavaScript (`$defaultFn`, as drizzle would).
  const keys = Object.keys(all).filter((k) => k in first || (all[k] as Column).defaultFn);
  const columns = keys.map((k) => {
    const column = all[k] as Column;
    const type = column.getSQLType();
    return { key: k, column, name: casing.getColumnCasing(column), type, asIs: type === "jsonb" || type === "json" };
  });
  const names = sql.join(
    columns.map((c) => sql.identifier(c.name)),
    sql`, `,
  );
  const types = sql.raw(columns.map((c) => `"${c.name}" ${c.type}`).join(", "));
  return {
    key: `${getTableName(table)}(${columns.map((c) => c.name).join(",")})`,
    insert: (param) =>
      sql`insert into ${table} (${names}) select ${names} from jsonb_to_recordset(${param}::jsonb) as r(${types})`,
    json: (rows) =>
      JSON.stringify(
        rows.map((row) => {
          const out: Record<string, unknown> = {};
          for (const c of columns) {
            const given = (row as Record<string, unknown>)[c.key];
            out[c.name] = jsonValue(
              c.column,
              c.asIs,
              given === undefined && c.column.defaultFn ? c.column.defaultFn() : given,
            );
          }
          return out;
        }),
      ),
  };
}

function jsonValue(column: Column, asIs: boolean, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return `\\x${value.toString("hex")}`;
  if (asIs || Array.isArray(value)) return value;
  return column.mapToDriverValue(value);
}
