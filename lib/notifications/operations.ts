import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as prefs from "./service";

export const getNotificationPreferences = defineOperation(c.getNotificationPreferences, ({ db, principal }) =>
  prefs.getNotificationPreferences(db, principal),
);
export const updateNotificationPreferences = defineOperation(
  c.updateNotificationPreferences,
  ({ db, principal, body }) => prefs.updateNotificationPreferences(db, principal, body.preferences),
);
