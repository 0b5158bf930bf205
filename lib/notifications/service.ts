import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { NOTIFICATION_CATEGORIES, type NotificationCategory, notificationPreferences } from "@/db/schema";
import { recordAudit } from "@/lib/core/audit";
import type { Principal } from "@/lib/auth/principal";

export interface NotificationPreferences {
  object: "notification_preferences";
  preferences: { category: NotificationCategory; emailEnabled: boolean }[];
}

/** Every category, email enabled unless the organization turned it off. */
export async function getNotificationPreferences(db: DbOrTx, principal: Principal): Promise<NotificationPreferences> {
  const rows = await db
    .select()
    .from(notificationPreferences)
    .where(eq(notificationPreferences.orgId, principal.orgId));
  const stored = new Map(rows.map((r) => [r.category, r.emailEnabled]));
  return {
    object: "notification_preferences",
    preferences: NOTIFICATION_CATEGORIES.map((category) => ({ category, emailEnabled: stored.get(category) ?? true })),
  };
}

export async function updateNotificationPreferences(
  db: DbOrTx,
  principal: Principal,
  changes: Partial<Record<NotificationCategory, boolean>>,
): Promise<NotificationPreferences> {
  await db.transaction(async (tx) => {
    const entries = Object.entries(changes) as [NotificationCategory, boolean][];
    await tx
      .insert(notificationPreferences)
      .values(entries.map(([category, emailEnabled]) => ({ orgId: principal.orgId, category, emailEnabled })))
      .onConflictDoUpdate({
        target: [notificationPreferences.orgId, notificationPreferences.category],
        set: { emailEnabled: sql`excluded.email_enabled`, updatedAt: sql`now()` },
      });
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "notification_preferences.updated",
      resourceType: "notification_preferences",
      resourceId: principal.orgId,
      metadata: { changes },
    });
  });
  return getNotificationPreferences(db, principal);
}
