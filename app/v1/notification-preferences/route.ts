import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/account";
import { getNotificationPreferences, updateNotificationPreferences } from "@/lib/notifications/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.getNotificationPreferences, ({ db, principal }) => getNotificationPreferences(db, principal)),
  handle(c.updateNotificationPreferences, ({ db, principal, body }) => updateNotificationPreferences(db, principal, body.preferences)),
);
