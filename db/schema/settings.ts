import { jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { tstz } from "./_columns";

/** Deployment-wide settings the product generates once (the shared domain's DKIM key, …). */
export const systemSettings = pgTable("system_settings", {
  key: text().primaryKey(),
  value: jsonb().notNull(),
  updatedAt: tstz().notNull().defaultNow(),
});
