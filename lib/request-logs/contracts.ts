import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { dateTimeInput } from "@/lib/core/datetime";
import { paginationQuery } from "@/lib/core/pagination";
import { isoDate, paginationSchema, uuidParam } from "@/lib/core/schemas";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export const requestLogSchema = z.object({
  id: z.uuid(),
  createdAt: isoDate,
  source: z
    .enum(["api", "mcp", "console"])
    .describe(
      "`api` for `/v1`, `mcp` for the MCP tool server, `console` for a console form whose action failed (recorded with the operation's `/v1` method and path, by the signed-in user).",
    ),
  method: z.string(),
  path: z.string(),
  query: z.string().nullable().describe("The query string, secrets redacted."),
  status: z.number().int(),
  errorCode: z.string().nullable().describe("The error envelope's `code` for a failed request."),
  keyId: z.uuid().nullable(),
  keyName: z.string().nullable().describe("The API key's name (null for console sessions)."),
  actor: z.string().describe("`api_key:<id>`, `mcp:<keyId>`, `user:<id>` or `agent:agt_…`."),
  actorName: z.string().nullable().describe("The key's name or the person's email."),
  durationMs: z.number().int(),
  requestId: z.string(),
  ip: z.string().nullable(),
  requestBody: z
    .string()
    .nullable()
    .describe("The JSON body as received with secrets and attachment bytes removed, cut at 16,384 characters."),
  responseBody: z.string().nullable().describe("The JSON answer, redacted and capped the same way."),
});

export const listRequestLogs = defineContract({
  id: "listRequestLogs",
  method: "GET",
  path: "/v1/logs",
  access: "account:read",
  tag: "Account",
  summary: "List API requests",
  description:
    "The organization's `/v1` and `/mcp` requests (and the console's failed form actions, `source` `console`), newest first, with redacted bodies (secrets and attachment bytes removed, capped). Kept `REQUEST_LOG_DAYS` days (7 by default). Filter by `keyId`, `status` (a code like `400`, or a class `4xx`/`5xx`), `method`, `path` (exact, or a prefix ending in `*`), `since`/`until`.",
  query: z.strictObject({
    ...paginationQuery(50),
    keyId: z.uuid().optional(),
    status: z
      .string()
      .regex(/^([1-5]\d\d|[1-5]xx)$/, "a status code like 400, or a class like 4xx")
      .optional(),
    method: z.enum(METHODS).optional(),
    path: z.string().min(1).max(500).startsWith("/").optional(),
    since: dateTimeInput().optional(),
    until: dateTimeInput().optional(),
  }),
  response: z.object({ logs: z.array(requestLogSchema), pagination: paginationSchema }),
});

export const getRequestLog = defineContract({
  id: "getRequestLog",
  method: "GET",
  path: "/v1/logs/{logId}",
  access: "account:read",
  tag: "Account",
  summary: "Get an API request",
  description: "One request of the log with its redacted bodies.",
  params: z.strictObject({ logId: uuidParam }),
  response: requestLogSchema,
});
