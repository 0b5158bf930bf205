import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { paginationQuery } from "@/lib/core/pagination";
import { isoDate, paginationSchema } from "@/lib/core/schemas";

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
