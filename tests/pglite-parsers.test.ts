import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { expect, test } from "vitest";
import { getDbHandle, rowsOf } from "@/db";

/**
 * db/client.ts installs drizzle's raw-text result parsers on the PGlite client once instead of
 * letting every query carry them (PGlite merged them into its whole parser table per query). The
 * values must be what drizzle over an untouched PGlite answers, through `execute` and the query
 * builder, inside and outside a transaction.
 */
const PROBE = sql`select '2026-11-28 10:00:00+00'::timestamptz as tz, '2026-11-28 10:00:00'::timestamp as ts,
  '2026-11-28'::date as d, '1 day 02:00:00'::interval as iv, array['2026-11-28 10:00:00+00'::timestamptz] as tza,
  array['2026-11-28'::date] as da, array[1.5::numeric] as na, array['1 day'::interval] as iva, 42::int as n,
  '{"a":1}'::jsonb as j, true as b`;

test("PGlite answers the same values with drizzle's parsers installed once", async () => {
  const handle = await getDbHandle();
  if (handle.kind !== "pglite") return; // the PostgreSQL run has no PGlite client to compare
  const client = await PGlite.create();
  const plain = drizzle({ client });
  const expected = rowsOf(await plain.execute(PROBE));
  expect(rowsOf(await handle.db.execute(PROBE))).toEqual(expected);
  expect(rowsOf(await handle.db.transaction((tx) => tx.execute(PROBE)))).toEqual(expected);
  expect(expected[0]).toMatchObject({ tz: "2026-11-28 10:00:00+00", d: "2026-11-28", iv: "1 day 02:00:00", n: 42 });
  const viaBuilder = await handle.db
    .select({ tz: sql<string>`'2026-11-28 10:00:00+00'::timestamptz` })
    .from(sql`(select 1) as one`);
  const plainBuilder = await plain
    .select({ tz: sql<string>`'2026-11-28 10:00:00+00'::timestamptz` })
    .from(sql`(select 1) as one`);
  expect(viaBuilder).toEqual(plainBuilder);
  await client.close();
});
