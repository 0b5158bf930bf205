import { eq, sql } from "drizzle-orm";
import { request as undiciRequest } from "undici";
import type { Db } from "@/db";
import { type AttemptRequest, ledgerEvents, webhookDeliveries, webhooks } from "@/db/schema";
import { env } from "@/lib/env";
import { signatureHeader } from "./signing";
import { guardedAgent, OutboundRefused } from "@/lib/providers/http";
import { loopbackAllowed, webhookUrlProblem } from "./url-guard";

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** What a receiver gets: the ledger row's id, type, time and data. */
export interface WebhookEnvelope {
  eventId: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

/** The secrets that sign now: the current one, and the previous one during its rotation window. */
export function activeSecrets(w: WebhookRow, now: Date = new Date()): string[] {
  return w.previousSecret && w.previousSecretExpiresAt && w.previousSecretExpiresAt > now
    ? [w.secret, w.previousSecret]
    : [w.secret];
}

export interface AttemptResult {
  /** No further attempt: delivered, endpoint gone, paused or deleted, or the event does not exist. */
  final: boolean;
  status: "succeeded" | "failed";
  retryAfterMs: number | null;
}

function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const s = Number(header);
  if (Number.isFinite(s)) return Math.min(Math.max(0, s * 1000), 36_000_000);
  const d = Date.parse(header);
  return Number.isNaN(d) ? null : Math.min(Math.max(0, d - Date.now()), 36_000_000);
}

/** The delivery log keeps this many characters of a request body (the receiver gets all of it). */
export const REQUEST_BODY_LIMIT = 8192;
/** …this many characters of the response body… */
export const RESPONSE_SNIPPET_LIMIT = 1024;
/** …and this many response headers, each value cut at RESPONSE_HEADER_VALUE_LIMIT characters. */
export const RESPONSE_HEADER_LIMIT = 40;
export const RESPONSE_HEADER_VALUE_LIMIT = 512;

/**
 * Text the log can store: a lone surrogate (a cut through an emoji's pair) or NUL becomes U+FFFD,
 * as neither passes PostgreSQL's text or jsonb input.
 */
const storable = (s: string): string =>
  s
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd")
    .replaceAll("\u0000", "\ufffd");

/** The outcome of one attempt, as a delivery-log row's fields. */
export interface PostOutcome {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  snippet: string | null;
  retryAfter: number | null;
  /** What was sent; null when no request was made (URL refused, endpoint paused). */
  request: AttemptRequest | null;
  responseHeaders: Record<string, string> | null;
}

/**
 * A response's headers, bounded for the delivery log (set-cookie left out: it may carry the
 * receiver's session), in name order with repeated headers joined, as `Headers` iterates them.
 */
function boundedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const name of Object.keys(headers).sort()) {
    const raw = headers[name];
    if (name === "set-cookie" || raw === undefined) continue;
    if (n++ >= RESPONSE_HEADER_LIMIT) break;
    const value = Array.isArray(raw) ? raw.join(", ") : raw;
    out[name] = value.length > RESPONSE_HEADER_VALUE_LIMIT ? `${value.slice(0, RESPONSE_HEADER_VALUE_LIMIT)}…` : value;
  }
  return out;
}

/**
 * POSTs one signed envelope; the outcome as a delivery-log row's fields. `problem` is the URL
 * check's answer when the caller made it for a batch of attempts to the same endpoint (undefined:
 * check now). The request goes through the guarded agent of `lib/providers/http`, whose connector
 * checks the address it actually connects to; undici's `request` rather than `fetch`, whose
 * WHATWG objects cost more than the rest of an attempt.
 */
export async function post(w: WebhookRow, envelope: WebhookEnvelope, problem?: string | null): Promise<PostOutcome> {
  if (problem === undefined) problem = await webhookUrlProblem(w.url);
  if (problem)
    return {
      ok: false,
      responseStatus: null,
      durationMs: 0,
      error: `URL refused: ${problem}`,
      snippet: null,
      retryAfter: null,
      request: null,
      responseHeaders: null,
    };
  const body = JSON.stringify(envelope);
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = signatureHeader(activeSecrets(w), envelope.eventId, timestamp, body);
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": "svc-webhooks/1.0",
    "webhook-id": envelope.eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signature,
    "X-Svc-Signature": signature,
  };
  const request: AttemptRequest = {
    method: "POST",
    url: w.url,
    headers,
    body: storable(body.slice(0, REQUEST_BODY_LIMIT)),
    bodyTruncated: body.length > REQUEST_BODY_LIMIT,
  };
  const started = performance.now();
  try {
    const res = await undiciRequest(w.url, {
      dispatcher: guardedAgent({ allowLoopback: loopbackAllowed() }),
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(env.WEBHOOK_TIMEOUT_MS),
    });
    const text = await res.body.text().catch(() => "");
    const status = res.statusCode;
    const ok = status >= 200 && status < 300;
    const retryAfter = res.headers["retry-after"];
    return {
      ok,
      responseStatus: status,
      durationMs: Math.round(performance.now() - started),
      error: ok ? null : `HTTP ${status}`,
      snippet: storable(text.slice(0, RESPONSE_SNIPPET_LIMIT)) || null,
      retryAfter:
        status === 429 || status === 503
          ? retryAfterMs(Array.isArray(retryAfter) ? (retryAfter[0] ?? null) : (retryAfter ?? null))
          : null,
      request,
      responseHeaders: boundedHeaders(res.headers),
    };
  } catch (err) {
    const timedOut = err instanceof Error && err.name === "TimeoutError";
    const cause = err instanceof Error && err.cause instanceof OutboundRefused ? err.cause : err;
    return {
      ok: false,
      responseStatus: null,
      durationMs: Math.round(performance.now() - started),
      error: timedOut
        ? `timed out after ${env.WEBHOOK_TIMEOUT_MS} ms`
        : `request failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      snippet: null,
      retryAfter: null,
      request,
      responseHeaders: null,
    };
  }
}

/** Records an attempt and moves the endpoint's failure count and circuit breaker. */
export async function recordAttempt(
  db: Db,
  w: WebhookRow,
  envelope: Pick<WebhookEnvelope, "eventId" | "type">,
  attempt: number,
  outcome: PostOutcome,
  replay: boolean,
): Promise<DeliveryRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(webhookDeliveries)
      .values({
        orgId: w.orgId,
        webhookId: w.id,
        eventId: envelope.eventId,
        eventType: envelope.type,
        attempt,
        status: outcome.ok ? "succeeded" : "failed",
        responseStatus: outcome.responseStatus,
        durationMs: outcome.durationMs,
        error: outcome.error,
        responseSnippet: outcome.snippet,
        request: outcome.request,
        responseHeaders: outcome.responseHeaders,
        replay,
      })
      .returning();
    if (!row) throw new Error("delivery insert returned nothing");
    if (outcome.ok) {
      await tx
        .update(webhooks)
        .set({ consecutiveFailures: 0, lastDeliveryAt: new Date() })
        .where(eq(webhooks.id, w.id));
    } else if (outcome.responseStatus === 410) {
      await tx
        .update(webhooks)
        .set({ status: "paused", pausedReason: "gone", lastDeliveryAt: new Date() })
        .where(eq(webhooks.id, w.id));
    } else {
      const [updated] = await tx
        .update(webhooks)
        .set({ consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1`, lastDeliveryAt: new Date() })
        .where(eq(webhooks.id, w.id))
        .returning();
      if (updated && updated.status === "active" && updated.consecutiveFailures >= env.WEBHOOK_BREAKER_THRESHOLD) {
        await tx
          .update(webhooks)
          .set({ status: "paused", autoPaused: true, autoPausedAt: new Date(), pausedReason: "auto:delivery_failures" })
          .where(eq(webhooks.id, w.id));
      }
    }
    return row;
  });
}

/**
 * One attempt of delivering a ledger event to a webhook (a step of the deliver-webhook workflow).
 * Harmless to repeat: it re-reads the webhook and the event.
 */
export async function attemptDelivery(
  db: Db,
  webhookId: string,
  eventId: string,
  attempt: number,
  lastAttempt: boolean,
  replay = false,
): Promise<AttemptResult> {
  const [w] = await db.select().from(webhooks).where(eq(webhooks.id, webhookId));
  const [event] = await db.select().from(ledgerEvents).where(eq(ledgerEvents.eventId, eventId));
  if (!w || !event || w.orgId !== event.orgId) return { final: true, status: "failed", retryAfterMs: null };
  const envelope: WebhookEnvelope = {
    eventId: event.eventId,
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    data: event.data,
  };
  if (w.status !== "active") {
    // Logged as failed so that `redrive` sends it once the endpoint is resumed.
    await db.insert(webhookDeliveries).values({
      orgId: w.orgId,
      webhookId: w.id,
      eventId,
      eventType: event.type,
      attempt,
      status: "failed",
      error: `endpoint ${w.pausedReason ?? "paused"}`,
      replay,
    });
    return { final: true, status: "failed", retryAfterMs: null };
  }
  const outcome = await post(w, envelope);
  await recordAttempt(db, w, envelope, attempt, outcome, replay);
  if (outcome.ok) return { final: true, status: "succeeded", retryAfterMs: null };
  return { final: lastAttempt || outcome.responseStatus === 410, status: "failed", retryAfterMs: outcome.retryAfter };
}

/**
 * Delivers events to one webhook strictly one after another (replays keep their order), each with
 * up to `tries` attempts a second apart. Returns how many were delivered.
 */
export async function deliverInOrder(
  db: Db,
  webhookId: string,
  eventIds: string[],
  tries = 3,
): Promise<{ delivered: number; failed: number }> {
  let delivered = 0;
  let failed = 0;
  for (const eventId of eventIds) {
    let ok = false;
    for (let t = 1; t <= tries && !ok; t++) {
      const r = await attemptDelivery(db, webhookId, eventId, t, t === tries, true);
      ok = r.status === "succeeded";
      if (r.final) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(r.retryAfterMs ?? 1000, 5000)));
    }
    if (ok) delivered++;
    else failed++;
  }
  return { delivered, failed };
}
