import { sql } from "drizzle-orm";
import { integer, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, tstz } from "./_columns";

/**
 * Fan-outs (lib/workflows/fanout.ts): one job that pages a source of members into chunks and
 * applies each chunk exactly once (broadcasts, letter batches).
 */
export const fanouts = pgTable("fanouts", {
  id: id(),
  /** The registered kind: which source pages the members and which sink applies a chunk. */
  kind: text().notNull(),
  /** The kind's own parameters (which audience, which message, …). */
  params: jsonb().$type<Record<string, unknown>>().notNull().default({}),
  chunkSize: integer().notNull(),
  status: text({ enum: ["running", "completed"] })
    .notNull()
    .default("running"),
  /** Known once the orchestrator has planned every chunk. */
  chunksTotal: integer(),
  chunksDone: integer().notNull().default(0),
  rowsDone: integer().notNull().default(0),
  createdAt: createdAt(),
  completedAt: tstz(),
});

/** Chunks applied: written in the chunk's own transaction, so a chunk is applied once. */
export const fanoutChunks = pgTable(
  "fanout_chunks",
  {
    fanoutId: uuid()
      .notNull()
      .references(() => fanouts.id, { onDelete: "cascade" }),
    chunk: integer().notNull(),
    rows: integer().notNull(),
    doneAt: tstz().notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.fanoutId, t.chunk] })],
);

/** The generic sink's rows: one per member, keyed by the member (`rows` kind; tests, benchmarks). */
export const fanoutRows = pgTable(
  "fanout_rows",
  {
    fanoutId: uuid()
      .notNull()
      .references(() => fanouts.id, { onDelete: "cascade" }),
    memberKey: text().notNull(),
    payload: jsonb().$type<Record<string, unknown>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.fanoutId, t.memberKey] })],
);
