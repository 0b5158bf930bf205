import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { tstz } from "./_columns";

/**
 * Fixed-window counters shared by every server process (lib/ratelimit): sign-in and email-link
 * throttles, failed API-key authentication per client address. `key` is a SHA-256 of the limited
 * subject (no addresses or emails in clear); expired rows are swept by housekeeping.
 */
export const rateLimits = pgTable(
  "rate_limits",
  {
    key: text().primaryKey(),
    hits: integer().notNull(),
    resetAt: tstz().notNull(),
  },
  (t) => [index("rate_limits_reset_idx").on(t.resetAt)],
);
