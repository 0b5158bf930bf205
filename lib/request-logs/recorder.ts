import { sql } from "drizzle-orm";
import { getDbHandle } from "@/db";
import { uuidv7 } from "@/db/ids";
import { type Actor, actorString, principalOf } from "@/lib/core/actor";
import { env } from "@/lib/env";
import { errorFields, log } from "@/lib/log";
import { redactBody, redactQuery } from "./redact";

/**
 * Records requests for the API request log off the request's path: `recordRequest` only pushes
 * the facts (the parsed bodies by reference, no serialization) onto an in-process buffer; a flush
 * 250 ms later — or at once when 200 are waiting — redacts, caps and writes the whole batch in one
 * INSERT. Requests without an organization (no key, a bad key) are not recorded: a log belongs to
 * an organization. Best effort by design: a crash loses the unflushed batch, a failed write is
 * logged and dropped; the request never waits for the log and never fails because of it.
 */

export interface RequestRecord {
  /** `console`: a console server action that failed (lib/console/action.ts); its path is the operation's `/v1` path. */
  source: "api" | "mcp" | "console";
  actor: Actor | null;
  method: string;
  url: URL;
  status: number;
  errorCode: string | null;
  /** `performance.now()` when the request arrived. */
  startedAt: number;
  requestId: string;
  ip: string | null;
  /** The request body as received (text) or parsed. */
  requestBody: unknown;
  /** The response body as sent (parsed data or the error envelope). */
  responseBody: unknown;
}

const FLUSH_AFTER_MS = 250;
const FLUSH_AT = 200;
let pending: { id: string; record: RequestRecord; at: Date; durationMs: number; orgId: string }[] = [];
let timer: NodeJS.Timeout | null = null;
let inflight: Promise<void> = Promise.resolve();

/** Buffers one request; the id its log entry will have, or null when it is not recorded (no organization, log off). */
export function recordRequest(record: RequestRecord): string | null {
  if (env.REQUEST_LOG_DAYS === 0 || !record.actor) return null;
  const principal = principalOf(record.actor);
  if (!principal) return null;
  const id = uuidv7();
  pending.push({
    id,
    record,
    at: new Date(),
    durationMs: Math.max(0, Math.round(performance.now() - record.startedAt)),
    orgId: principal.orgId,
  });
  if (pending.length >= FLUSH_AT) void flushRequestLog();
  else if (!timer) {
    timer = setTimeout(() => void flushRequestLog(), FLUSH_AFTER_MS);
    timer.unref();
  }
  return id;
}

/** Writes what is buffered (and waits for a flush already under way); the list operation calls it first. */
export function flushRequestLog(): Promise<void> {
  if (timer) {
    clearTimeout(timer);
    timer = null;
  }
  const batch = pending;
  pending = [];
  inflight = inflight.then(() => (batch.length ? write(batch) : undefined));
  return inflight;
}

const COLUMNS = [
  "id",
  "org_id",
  "source",
  "method",
  "path",
  "query",
  "status",
  "error_code",
  "key_id",
  "actor",
  "duration_ms",
  "request_id",
  "ip",
  "request_body",
  "response_body",
  "created_at",
] as const;

/**
 * The whole batch in one statement, never built value by value (a 200-row batch through the query
 * builder was 3,400 bound values). On PGlite a `COPY` (`DbHandle.copyRows`): nothing for the
 * database to parse the bodies out of — a 2 KB body inside a JSON parameter cost PGlite about three
 * times as much to parse as to store, and whoami pays it on every request. Elsewhere, and for a
 * batch that names an organization deleted since its request (the foreign key fails the COPY), one
 * INSERT from one JSON parameter that leaves such rows out.
 */
async function write(batch: typeof pending): Promise<void> {
  try {
    const rows = batch.map(({ id, record: r, at, durationMs, orgId }) => {
      const principal = r.actor ? principalOf(r.actor) : null;
      return {
        id,
        org_id: orgId,
        source: r.source,
        method: r.method,
        path: r.url.pathname.slice(0, 2048),
        query: redactQuery(r.url.search),
        status: r.status,
        error_code: r.errorCode,
        key_id: principal?.apiKeyId ?? null,
        actor: r.actor ? actorString(r.actor) : "anonymous",
        duration_ms: durationMs,
        request_id: r.requestId,
        ip: r.ip,
        request_body: redactBody(r.requestBody),
        // The log's own listing is not copied into the log (each read would nest the ones before).
        response_body: r.url.pathname.startsWith("/v1/logs") ? null : redactBody(r.responseBody),
        created_at: at,
      } satisfies Record<(typeof COLUMNS)[number], unknown>;
    });
    const handle = await getDbHandle();
    if (handle.copyRows) {
      try {
        await handle.copyRows(
          "request_logs",
          COLUMNS,
          rows.map((row) => COLUMNS.map((c) => row[c])),
        );
        return;
      } catch (err) {
        if ((err as { code?: unknown }).code !== FOREIGN_KEY_VIOLATION) throw err;
      }
    }
    await handle.db.execute(sql`
      insert into request_logs (${sql.raw(COLUMNS.join(", "))})
      select * from json_to_recordset(${JSON.stringify(rows)}::json) as r(id uuid, org_id uuid, source text,
        method text, path text, query text, status int, error_code text, key_id uuid, actor text, duration_ms int,
        request_id text, ip text, request_body text, response_body text, created_at timestamptz)
      where exists (select 1 from organizations o where o.id = r.org_id)`);
  } catch (err) {
    log.warn("request log batch dropped", { requests: batch.length, ...errorFields(err) });
  }
}

const FOREIGN_KEY_VIOLATION = "23503";
