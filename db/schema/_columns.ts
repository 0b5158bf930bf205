import { sql } from "drizzle-orm";
import { timestamp, uuid } from "drizzle-orm/pg-core";
import { uuidv7 } from "../ids";

/** Shared column helpers: every table uses the same id and timestamp shapes. */
export const id = () =>
  uuid()
    .primaryKey()
    .$defaultFn(() => uuidv7());

/**
 * Millisecond precision, like JavaScript dates, so keyset cursors (which carry a JS date)
 * compare exactly against stored values.
 */
export const createdAt = () =>
  timestamp({ withTimezone: true, mode: "date", precision: 3 })
    .notNull()
    .default(sql`now()`)
    .$defaultFn(() => new Date());

export const tstz = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });

/** The owning organization; every tenant resource has one. */
export const orgRef = () => uuid().notNull();
