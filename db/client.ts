import path from "node:path";
import type { PGlite, QueryOptions, Transaction } from "@electric-sql/pglite";
import { type PgDatabase, PgPreparedQuery, type PgQueryResultHKT } from "drizzle-orm/pg-core";
import { env, pgliteDir, projectRoot } from "@/lib/env";
import { copyStatement, copyText } from "./copy";
import { scrubQueryError } from "./errors";
import { acquireDataDirLock } from "./lock";
import * as schema from "./schema";

/**
 * One database handle per process. `DATABASE_URL` set: PostgreSQL through postgres.js with a pool;
 * unset: embedded PGlite in PGLITE_DIR. Both run the same migrations (applied on first use) and
 * the same queries. The handle lives on `globalThis` because the custom server and Next's route
 * bundles load this module separately in one process, and a second PGlite on the same directory
 * would corrupt it.
 */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Query and service functions take this so a transaction or a test database can be passed in. */
export type DbOrTx = Db | Tx;

export interface DbHandle {
  db: Db;
  kind: "pglite" | "postgres";
  /** LISTEN on a channel: `NOTIFY`s sent by committed transactions of any process reach `fn`. */
  listen(channel: string, fn: (payload: string) => void): Promise<void>;
  /**
   * PGlite only: appends rows with `COPY … FROM` (text format, `copyText`). For a batch of rows
   * with long text it is far cheaper than a multi-row INSERT, whose values the database parses from
   * SQL or JSON in this process (a 2 KB text inside a JSON parameter costs PGlite more to parse than
   * to store). All or nothing, like one INSERT: a constraint violation fails the whole batch.
   * Absent on PostgreSQL: postgres.js 3.4 loses an error of `COPY … FROM STDIN` (its writable's
   * final callback is never called and the call hangs), and there the parsing is the server's.
   */
  copyRows?(table: string, columns: readonly string[], rows: readonly (readonly unknown[])[]): Promise<void>;
  close(): Promise<void>;
}

const SCRUBBED = Symbol.for("svc.db.scrubbedQueryErrors");
type Patched = { [SCRUBBED]?: true; queryWithCache: (...args: unknown[]) => Promise<unknown> };

/**
 * Every drizzle query (both drivers, in and out of transactions) runs through
 * `PgPreparedQuery.queryWithCache`, which is where drizzle builds its error with every bound value
 * in the message: errors leave it scrubbed (`db/errors.ts`), once per loaded copy of drizzle.
 */
function scrubQueryErrors(): void {
  const proto = PgPreparedQuery.prototype as unknown as Patched;
  if (proto[SCRUBBED]) return;
  const original = proto.queryWithCache;
  proto.queryWithCache = async function (this: unknown, ...args: unknown[]) {
    try {
      return await original.apply(this, args);
    } catch (err) {
      throw scrubQueryError(err);
    }
  };
  proto[SCRUBBED] = true;
}
scrubQueryErrors();

/**
 * postgres.js runs an unprepared statement that has parameters in two round trips (Parse and
 * Describe to learn the parameter types, then Bind and Execute); a prepared one in one round trip
 * after its first use on a connection, and PostgreSQL keeps its parse. drizzle prepares only
 * queries given a name, so every query is prepared here, except those with more than
 * `PREPARE_MAX_PARAMS` parameters (multi-row inserts, long `IN` lists): their text varies with the
 * row count, and each variant would stay on the connection as another statement. Connections are
 * replaced after postgres.js's `max_lifetime` (30–60 min), which bounds what a connection keeps.
 */
const PREPARE_MAX_PARAMS = 64;
const PREPARED = Symbol.for("svc.db.preparedStatements");
type PreparingSession = {
  prepareQuery: (
    query: { params: unknown[] },
    fields: unknown,
    name: string | undefined,
    ...rest: unknown[]
  ) => unknown;
};
function prepareStatements(session: { prototype: unknown }): void {
  const proto = session.prototype as PreparingSession & { [PREPARED]?: true };
  if (proto[PREPARED]) return;
  const original = proto.prepareQuery;
  proto.prepareQuery = function (this: unknown, query, fields, name, ...rest) {
    return original.call(
      this,
      query,
      fields,
      name ?? (query.params.length <= PREPARE_MAX_PARAMS ? "" : undefined),
      ...rest,
    );
  };
  proto[PREPARED] = true;
}

const MIGRATIONS = path.join(projectRoot, "db", "migrations");
/** Serializes concurrent migrators on PostgreSQL (several processes starting at once). */
const MIGRATION_LOCK_ID = 7_246_119;

async function openPostgres(url: string): Promise<DbHandle> {
  const { default: postgres } = await import("postgres");
  const { drizzle, PostgresJsSession } = await import("drizzle-orm/postgres-js");
  if (!env.SKIP_MIGRATIONS) {
    const { migrate } = await import("drizzle-orm/postgres-js/migrator");
    const single = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await single`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
      await migrate(drizzle({ client: single }), { migrationsFolder: MIGRATIONS });
      await single`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
    } finally {
      await single.end();
    }
  }
  prepareStatements(PostgresJsSession);
  const client = postgres(url, { max: env.DATABASE_POOL_MAX, onnotice: () => {} });
  const db = drizzle({ client, schema, casing: "snake_case" }) as unknown as Db;
  return {
    db,
    kind: "postgres",
    listen: async (channel, fn) => {
      await client.listen(channel, fn);
    },
    close: () => client.end(),
  };
}

async function openPglite(): Promise<DbHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  // Trigram indexes back the console's search (migration 0016_search).
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const { drizzle } = await import("drizzle-orm/pglite");
  const dir = pgliteDir();
  let client;
  if (dir) {
    acquireDataDirLock(dir);
    client = await PGlite.create({ dataDir: path.join(dir, "pgdata"), extensions: { pg_trgm } });
  } else {
    client = await PGlite.create({ extensions: { pg_trgm } });
  }
  parseRawTypesOnce(client);
  const db = drizzle({ client, schema, casing: "snake_case" }) as unknown as Db;
  if (!env.SKIP_MIGRATIONS) {
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    await migrate(drizzle({ client }), { migrationsFolder: MIGRATIONS });
  }
  return {
    db,
    kind: "pglite",
    listen: async (channel, fn) => {
      await client.listen(channel, fn);
    },
    copyRows: async (table, columns, rows) => {
      await client.query(copyStatement(table, columns, "'/dev/blob'"), [], { blob: new Blob([copyText(rows)]) });
    },
    close: () => client.close(),
  };
}

/**
 * The types drizzle reads as text from PGlite (timestamps, dates, intervals and their arrays,
 * numeric[]): drizzle passes these nine identity parsers with every query, and PGlite merges them
 * into its own table — a parser per type, every array type included, several hundred entries — on
 * every query (`{ ...this.parsers, ...options.parsers }` in its `parseResults`): 10% of a send's CPU
 * on PGlite. They are installed on the client once instead, and taken off each query that carries
 * exactly them; results are the same.
 */
const RAW_TYPES = new Set([1114, 1184, 1186, 1082, 1231, 1115, 1185, 1187, 1182]);

type Queryable = Pick<PGlite | Transaction, "query">;

function withoutRawParsers<T extends Queryable>(target: T): T {
  const query = target.query.bind(target);
  target.query = ((q: string, params?: unknown[], options?: QueryOptions) => {
    const parsers = options?.parsers;
    if (!parsers) return query(q, params, options);
    const keys = Object.keys(parsers);
    if (keys.length !== RAW_TYPES.size || !keys.every((k) => RAW_TYPES.has(Number(k)))) {
      return query(q, params, options);
    }
    const { parsers: _same, ...rest } = options;
    return query(q, params, rest);
  }) as T["query"];
  return target;
}

function parseRawTypesOnce(client: PGlite): void {
  for (const oid of RAW_TYPES) client.parsers[oid] = (value) => value;
  withoutRawParsers(client);
  const transaction = client.transaction.bind(client);
  client.transaction = ((fn: (tx: Transaction) => Promise<unknown>) =>
    transaction((tx) => fn(withoutRawParsers(tx)))) as PGlite["transaction"];
}

const KEY = Symbol.for("svc.db");
type Holder = { [KEY]?: Promise<DbHandle> };

/** The process-wide handle, opened (and migrated) on first use. */
export function getDbHandle(): Promise<DbHandle> {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const opening = env.DATABASE_URL ? openPostgres(env.DATABASE_URL) : openPglite();
    holder[KEY] = opening;
    // A failed open must not be cached forever: the next caller tries again.
    opening.catch(() => {
      if (holder[KEY] === opening) delete holder[KEY];
    });
  }
  return holder[KEY];
}

export async function getDb(): Promise<Db> {
  return (await getDbHandle()).db;
}

export async function closeDb(): Promise<void> {
  const holder = globalThis as Holder;
  const opening = holder[KEY];
  if (!opening) return;
  delete holder[KEY];
  await (await opening).close();
}

/** The rows of `db.execute(sql...)`: postgres.js answers an array, PGlite `{ rows }`. */
export function rowsOf<T>(result: unknown): T[] {
  const r = result as { rows?: T[] } | T[];
  return Array.isArray(r) ? r : (r.rows ?? []);
}
