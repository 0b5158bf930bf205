import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { NOTIFICATION_CATEGORIES } from "@/db/schema/notifications";

const preferencesSchema = z.object({
  object: z.literal("notification_preferences"),
  preferences: z.array(z.object({ category: z.enum(NOTIFICATION_CATEGORIES), emailEnabled: z.boolean() })),
});

export const getNotificationPreferences = defineContract({
  id: "getNotificationPreferences",
  method: "GET",
  path: "/v1/notification-preferences",
  access: "account:read",
  tag: "Account",
  summary: "Get notification preferences",
  response: preferencesSchema,
});

const categoryFlags = z.strictObject(
  Object.fromEntries(NOTIFICATION_CATEGORIES.map((c) => [c, z.boolean().optional()])) as Record<
    (typeof NOTIFICATION_CATEGORIES)[number],
    z.ZodOptional<z.ZodBoolean>
  >,
);

export const updateNotificationPreferences = defineContract({
  id: "updateNotificationPreferences",
  method: "PATCH",
  path: "/v1/notification-preferences",
  access: "account:write",
  tag: "Account",
  summary: "Update notification preferences",
  description:
    "`preferences` maps categories to whether email is enabled. At least one known category; unknown categories are rejected.",
  body: z.strictObject({
    preferences: categoryFlags.refine((v) => Object.values(v).some((x) => x !== undefined), {
      message: "Give at least one category.",
    }),
  }),
  example: { preferences: { product: false } },
  response: preferencesSchema,
});
