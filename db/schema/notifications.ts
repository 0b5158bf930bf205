import { boolean, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { orgRef, tstz } from "./_columns";
import { organizations } from "./organizations";

export const NOTIFICATION_CATEGORIES = ["account", "billing", "usage", "security", "product"] as const;
export type NotificationCategory = (typeof NOTIFICATION_CATEGORIES)[number];

/** Only categories that differ from the default (email enabled) need a row; reads fill the rest. */
export const notificationPreferences = pgTable(
  "notification_preferences",
  {
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    category: text({ enum: NOTIFICATION_CATEGORIES }).notNull(),
    emailEnabled: boolean().notNull(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "notification_preferences_pkey", columns: [t.orgId, t.category] })],
);
