import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb, rowsOf } from "@/db";
import { compiled } from "@/db/compiled";
import { jsonRows, rowOf } from "@/db/rows";
import { systemSettings } from "@/db/schema";

// A statement of the kind the send builds once (db/compiled.ts): a data-modifying CTE whose values
// are placeholders — one encoded by its column (jsonb through `.set()`), one bare — filled per call.
const upsert = compiled<{ key: string; value: unknown; note: string | null }>((db) => {
  const p = sql.placeholder;
  const update = db
    .update(systemSettings)
    .set({ value: p("value") })
    .where(and(eq(systemSettings.key, p("key")), sql`${p("note")}::text is null`))
    .returning();
  return sql`with u as (${update.getSQL()}) select u.*, ${p("note")}::text as note from u`;
});

test("a statement built once runs with each call's values, encoded by their columns", async () => {
  const db = await getDb();
  const keys = [`compiled-a-${randomUUID()}`, `compiled-b-${randomUUID()}`];
  const shape = jsonRows(systemSettings, [{ key: keys[0], value: { n: 0 } }]);
  await db.execute(shape.insert(shape.json(keys.map((key, n) => ({ key, value: { n } })))));

  // The same text, two calls: each updates its own row with its own JSON value.
  for (const [i, key] of keys.entries()) {
    const [raw] = rowsOf<Record<string, unknown>>(
      await upsert(db, { key, value: { n: i + 10, s: "x'y" }, note: null }),
    );
    expect(rowOf(systemSettings, raw as Record<string, unknown>)).toMatchObject({
      key,
      value: { n: i + 10, s: "x'y" },
    });
  }
  // A bare placeholder passes its value as it is: a non-null note matches no row.
  expect(rowsOf(await upsert(db, { key: keys[0] as string, value: { n: 99 }, note: "skip" }))).toEqual([]);
  const stored = await db
    .select()
    .from(systemSettings)
    .where(eq(systemSettings.key, keys[0] as string));
  expect(stored[0]?.value).toEqual({ n: 10, s: "x'y" });
  // Inside a transaction the statement runs on the transaction's connection (rolled back with it).
  await db
    .transaction(async (tx) => {
      await upsert(tx, { key: keys[1] as string, value: { n: -1 }, note: null });
      tx.rollback();
    })
    .catch(() => {});
  const [b] = await db
    .select()
    .from(systemSettings)
    .where(eq(systemSettings.key, keys[1] as string));
  expect(b?.value).toEqual({ n: 11, s: "x'y" });
  // A missing value is refused, not sent as null.
  await expect(upsert(db, { key: keys[0] as string, value: { n: 1 } } as never)).rejects.toThrow(/placeholder "note"/);
});
