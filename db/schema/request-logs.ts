import { index, integer, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef } from "./_columns";
import { organizations } from "./organizations";

/**
 * The API request log (`GET /v1/logs`): one row per `/v1` or `/mcp` request an organization's
 * caller made (and per failed console action, so a form's error can link to its entry), written in batches off the request's path (`lib/request-logs/recorder.ts`). Bodies
 * are stored redacted (secrets and attachment bytes removed) and capped; rows older than
 * `REQUEST_LOG_DAYS` are purged by housekeeping. Not part of the audit chain: a request log is a
 * debugging aid, best effort (a crash loses the last unflushed batch).
 */
export const requestLogs = pgTable(
  "request_logs",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    /** `api` (`/v1`), `mcp` (`/mcp`) or `console` (a console form's failed action, path = the operation's `/v1` path). */
    source: text({ enum: ["api", "mcp", "console"] }).notNull(),
    method: text().notNull(),
    path: text().notNull(),
    /** The query string without its `?`, secrets redacted; null when there was none. */
    query: text(),
    status: integer().notNull(),
    /** The error envelope's `code` for a 4xx/5xx. */
    errorCode: text(),
    /** The API key that called (no foreign key: a deleted key's requests stay readable). */
    keyId: uuid(),
    /** The audit actor string: `api_key:<id>`, `user:<id>`, `mcp:<keyId>`, `agent:agt_…`. */
    actor: text().notNull(),
    durationMs: integer().notNull(),
    requestId: text().notNull(),
    ip: text(),
    requestBody: text(),
    responseBody: text(),
    createdAt: createdAt(),
  },
  (t) => [
    index("request_logs_org_created_idx").on(t.orgId, t.createdAt, t.id),
    index("request_logs_org_key_created_idx").on(t.orgId, t.keyId, t.createdAt),
    index("request_logs_created_idx").on(t.createdAt),
  ],
);
