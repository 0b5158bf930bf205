import { pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt } from "./_columns";

/**
 * Provider callbacks already taken, by the provider's own key (Telegram: `<bot id>:<update_id>`):
 * a redelivered callback finds its key here and is acknowledged without being landed again. The
 * key is written in the transaction that lands the callback, so it is there exactly when the
 * callback's messages and events are.
 */
export const providerCallbacks = pgTable(
  "provider_callbacks",
  {
    provider: text().notNull(),
    callbackKey: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.callbackKey] })],
);
