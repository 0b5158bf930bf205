import type { SQL } from "drizzle-orm";
import type { DbOrTx } from "./client";

type Query = { sql: string; params: unknown[] };
type Internals = {
  dialect: { sqlToQuery(sql: SQL): Query };
  session: { prepareQuery(q: Query, fields: undefined, name: undefined, arrayMode: boolean): Prepared };
};
type Prepared = { execute(values: Record<string, unknown>): Promise<unknown> };

/**
 * A statement drizzle builds once and runs many times: drizzle's own `.prepare()` for statements it
 * cannot prepare itself (data-modifying CTEs run through `db.execute`). `build` writes the
 * statement with `sql.placeholder(name)` wherever a value goes — in `eq()` and `.set()` a
 * placeholder is encoded by its column when it is filled, as in a prepared query — and each call
 * fills the placeholders from `values` (`fillPlaceholders`). Building costs more than running on a
 * hot path: every chunk of a statement goes through `is()` checks, column casing and parameter
 * mapping (a send's two statements were 12% of its CPU). The text is the same for every handle (one
 * dialect, snake_case), so it is built on the first call, with that call's handle.
 *
 * When the text depends on more than the values (the columns the rows carry), the caller passes
 * that `shape` with a `key` naming it: one text is kept per key, built from the first shape seen.
 */
export function compiled<V extends Record<string, unknown>, S = undefined>(
  build: (db: DbOrTx, shape: S) => SQL,
): (db: DbOrTx, values: V, ...variant: S extends undefined ? [] : [shape: S, key: string]) => Promise<unknown> {
  const texts = new Map<string, Query>();
  return (db, values, ...variant) => {
    const internals = db as unknown as Internals;
    const [shape, key = ""] = variant as unknown as [S, string?];
    let query = texts.get(key);
    if (!query) {
      query = internals.dialect.sqlToQuery(build(db, shape));
      texts.set(key, query);
    }
    return internals.session.prepareQuery(query, undefined, undefined, false).execute(values);
  };
}
