import { and, count, desc, eq, gte, inArray, lt, lte, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { apiKeys, requestLogs, users } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { notFound } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { env } from "@/lib/env";
import { flushRequestLog } from "./recorder";

export interface ListRequestLogsInput {
  limit: number;
  cursor?: string;
  keyId?: string;
  status?: string;
  method?: string;
  path?: string;
  since?: string;
  until?: string;
}

type Row = typeof requestLogs.$inferSelect;

/** Newest first, keyset-paginated on (createdAt, id). Flushes this process's buffer first, so a caller sees its own requests. */
export async function listRequestLogs(db: DbOrTx, principal: Principal, input: ListRequestLogsInput) {
  await flushRequestLog();
  const where: (SQL | undefined)[] = [eq(requestLogs.orgId, principal.orgId)];
  if (input.keyId) where.push(eq(requestLogs.keyId, input.keyId));
  if (input.status) {
    const klass = /^([1-5])xx$/.exec(input.status);
    if (klass) {
      const base = Number(klass[1]) * 100;
      where.push(gte(requestLogs.status, base), lt(requestLogs.status, base + 100));
    } else where.push(eq(requestLogs.status, Number(input.status)));
  }
  if (input.method) where.push(eq(requestLogs.method, input.method));
  if (input.path) {
    where.push(
      input.path.endsWith("*")
        ? sql`starts_with(${requestLogs.path}, ${input.path.slice(0, -1)})`
        : eq(requestLogs.path, input.path),
    );
  }
  if (input.since) where.push(gte(requestLogs.createdAt, new Date(input.since)));
  if (input.until) where.push(lte(requestLogs.createdAt, new Date(input.until)));
  where.push(keysetBefore(requestLogs.createdAt, requestLogs.id, decodeCursor(input.cursor)));
  const rows = await db
    .select()
    .from(requestLogs)
    .where(and(...where))
    .orderBy(desc(requestLogs.createdAt), desc(requestLogs.id))
    .limit(input.limit + 1);
  const page = toPage(rows, input.limit);
  const names = await actorNames(db, principal.orgId, page.items);
  return { logs: page.items.map((r) => toPublic(r, names)), pagination: page.pagination };
}

export async function getRequestLog(db: DbOrTx, principal: Principal, logId: string) {
  await flushRequestLog();
  const [row] = await db
    .select()
    .from(requestLogs)
    .where(and(eq(requestLogs.orgId, principal.orgId), eq(requestLogs.id, logId)));
  if (!row) throw notFound("request log entry", "logId");
  return toPublic(row, await actorNames(db, principal.orgId, [row]));
}

/** Requests per API key of the organization in the last 24 hours (the API keys page). */
export async function requestCountsByKey(db: DbOrTx, orgId: string): Promise<Map<string, number>> {
  await flushRequestLog();
  const rows = await db
    .select({ keyId: requestLogs.keyId, n: count() })
    .from(requestLogs)
    .where(and(eq(requestLogs.orgId, orgId), gte(requestLogs.createdAt, new Date(Date.now() - 24 * 3600_000))))
    .groupBy(requestLogs.keyId);
  return new Map(rows.filter((r) => r.keyId).map((r) => [r.keyId as string, r.n]));
}

/** Drops requests older than `REQUEST_LOG_DAYS` (housekeeping); the number removed. */
export async function purgeOldRequestLogs(db: DbOrTx, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - Math.max(env.REQUEST_LOG_DAYS, 0) * 86_400_000);
  const gone = await db.delete(requestLogs).where(lt(requestLogs.createdAt, cutoff)).returning({ id: requestLogs.id });
  return gone.length;
}

interface Names {
  keys: Map<string, string>;
  users: Map<string, string>;
}

/** Key names and people's emails for the rows' actors: names, not ids. */
async function actorNames(db: DbOrTx, orgId: string, rows: Row[]): Promise<Names> {
  const keyIds = [...new Set(rows.map((r) => r.keyId).filter((k): k is string => k !== null))];
  const userIds = [
    ...new Set(rows.map((r) => /^user:([0-9a-f-]{36})$/.exec(r.actor)?.[1]).filter((u): u is string => !!u)),
  ];
  const [keys, people] = await Promise.all([
    keyIds.length
      ? db
          .select({ id: apiKeys.id, name: apiKeys.name })
          .from(apiKeys)
          .where(and(eq(apiKeys.orgId, orgId), inArray(apiKeys.id, keyIds)))
      : [],
    userIds.length ? db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, userIds)) : [],
  ]);
  return {
    keys: new Map(keys.map((k) => [k.id, k.name])),
    users: new Map(people.filter((u) => u.email).map((u) => [u.id, u.email])),
  };
}

function toPublic(r: Row, names: Names) {
  const keyName = r.keyId ? (names.keys.get(r.keyId) ?? null) : null;
  const userId = /^user:(.+)$/.exec(r.actor)?.[1];
  return {
    id: r.id,
    createdAt: r.createdAt.toISOString(),
    source: r.source,
    method: r.method,
    path: r.path,
    query: r.query,
    status: r.status,
    errorCode: r.errorCode,
    keyId: r.keyId,
    keyName,
    actor: r.actor,
    actorName: keyName ?? (userId ? (names.users.get(userId) ?? null) : null),
    durationMs: r.durationMs,
    requestId: r.requestId,
    ip: r.ip,
    requestBody: r.requestBody,
    responseBody: r.responseBody,
  };
}
