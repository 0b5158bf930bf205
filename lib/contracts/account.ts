import { z } from "zod";
import { defineContract } from "@/lib/api/contract";
import { paginationQuery } from "@/lib/api/pagination";
import { NOTIFICATION_CATEGORIES } from "@/db/schema/notifications";
import { isoDate, paginationSchema } from "./common";

const organizationSchema = z.object({
  id: z.string().nullable(),
  name: z.string(),
  slug: z.string(),
  vanitySlug: z.string().nullable(),
  role: z.enum(["owner", "admin", "member"]).nullable(),
});

const storageSchema = z.object({
  usedBytes: z.int(),
  limitBytes: z.int(),
  remainingBytes: z.int(),
  breakdown: z.object({
    mailBodyBytes: z.int(),
    attachmentBytes: z.int(),
    fileBytes: z.int(),
    expiringFileBytes: z.int(),
    activeFileObjects: z.int(),
  }),
});

export const whoamiSchema = z.object({
  userId: z.string(),
  projectId: z.string().nullable(),
  apiKey: z.object({ id: z.string(), scopes: z.array(z.string()) }),
  plan: z.string(),
  limits: z.object({
    requestsPerMinute: z.int(),
    apiKeys: z.int().nullable(),
    allowedIpsPerKey: z.int(),
    idempotencyKeyHours: z.int(),
    maxRequestBytes: z.int(),
  }),
  usage: z.object({ activeApiKeys: z.int(), requestsThisMinute: z.int() }),
  period: z.object({ start: isoDate, end: isoDate }),
  notes: z.object({ selfHosted: z.boolean(), rateLimitScope: z.string(), sharedDomain: z.string() }),
  storage: storageSchema,
  organization: z.object({ id: z.string().nullable(), role: z.enum(["owner", "admin", "member"]).nullable() }),
  organizations: z.array(organizationSchema),
  letters: z.object({ printMode: z.enum(["test", "live"]) }),
});
export type Whoami = z.infer<typeof whoamiSchema>;

export const getWhoami = defineContract({
  id: "getWhoami",
  method: "GET",
  path: "/v1/whoami",
  access: "key",
  tag: "Account",
  summary: "Who am I",
  description: "Introspects the calling key: its user, organization, scopes, limits and usage. Works for any valid key regardless of scopes.",
  response: whoamiSchema,
});

const auditLogSchema = z.object({
  id: z.uuid(),
  action: z.string(),
  createdAt: isoDate,
  resourceType: z.string().nullable(),
  resourceId: z.string().nullable(),
  actor: z.string().nullable(),
  ip: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
});

export const listAuditLogs = defineContract({
  id: "listAuditLogs",
  method: "GET",
  path: "/v1/audit-logs",
  access: "account:read",
  tag: "Account",
  summary: "List audit logs",
  description: "Control-plane actions, newest first. Filter by `action`, `resourceType` or `resourceId`.",
  query: z.strictObject({
    ...paginationQuery(),
    action: z.string().min(1).max(100).optional(),
    resourceType: z.string().min(1).max(100).optional(),
    resourceId: z.string().min(1).max(200).optional(),
  }),
  response: z.object({ logs: z.array(auditLogSchema), pagination: paginationSchema }),
});

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
  description: "`preferences` maps categories to whether email is enabled. At least one known category; unknown categories are rejected.",
  body: z.strictObject({
    preferences: categoryFlags.refine((v) => Object.values(v).some((x) => x !== undefined), {
      message: "Give at least one category.",
    }),
  }),
  example: { preferences: { product: false } },
  response: preferencesSchema,
});
