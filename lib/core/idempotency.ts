import { createHash } from "node:crypto";
import { and, eq, lt, sql } from "drizzle-orm";
import { getDb } from "@/db";
import { idempotencyKeys } from "@/db/schema";
import { env } from "@/lib/env";
import { ApiError } from "./errors";

export const IDEMPOTENCY_KEY_MAX = 128;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** JSON with object keys sorted, so equal inputs give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/**
 * What makes two requests "the same" under one Idempotency-Key: the operation and its input
 * (path parameters, query, body) as canonical JSON, whatever the surface that sent them.
 */
export function requestFingerprint(
  operationId: string,
  input: { params?: unknown; query?: unknown; body?: unknown },
): string {
  const text = `${operationId}\n${canonicalJson(input.params ?? null)}\n${canonicalJson(input.query ?? null)}\n${canonicalJson(input.body ?? null)}`;
  return createHash("sha256").update(text).digest("hex");
}

/** How long a duplicate waits for the first request with its key to finish. */
const WAIT_FOR_FIRST_MS = 15_000;
/** An in-progress claim older than this belongs to a process that died; it may be taken over. */
const ABANDONED_AFTER_MS = 60_000;

export type Claim = { kind: "claimed" } | { kind: "replay"; response: StoredResponse };

/**
 * Claims `key` for this request. The first request inserts the row and executes; a concurrent
 * duplicate finds the row, waits for the stored response and replays it, so the operation runs
 * once. Same key with a different request: 400 `idempotency_key_mismatch`.
 */
export async function claimIdempotencyKey(
  orgId: string,
  apiKeyId: string | null,
  key: string,
  fingerprint: string,
): Promise<Claim> {
  const db = await getDb();
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const inserted = await db
      .insert(idempotencyKeys)
      .values({ orgId, key, apiKeyId, requestHash: fingerprint })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length > 0) return { kind: "claimed" };

    const [row] = await db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.orgId, orgId), eq(idempotencyKeys.key, key)));
    if (!row) continue; // released between our insert and select: try again
    if (row.requestHash !== fingerprint) {
      throw new ApiError(
        "idempotency_key_mismatch",
        "This Idempotency-Key was already used with a different request.",
        "Idempotency-Key",
      );
    }
    if (row.status === "completed" && row.responseStatus !== null) {
      return { kind: "replay", response: { status: row.responseStatus, body: row.responseBody } };
    }
    if (Date.now() - row.createdAt.getTime() > ABANDONED_AFTER_MS) {
      const taken = await db
        .update(idempotencyKeys)
        .set({ createdAt: sql`now()` })
        .where(
          and(
            eq(idempotencyKeys.orgId, orgId),
            eq(idempotencyKeys.key, key),
            eq(idempotencyKeys.createdAt, row.createdAt),
          ),
        )
        .returning({ key: idempotencyKeys.key });
      if (taken.length > 0) return { kind: "claimed" };
    }
    if (Date.now() > deadline) {
      throw new ApiError(
        "idempotency_key_in_use",
        "A request with this Idempotency-Key is still in progress; retry later.",
        "Idempotency-Key",
      ).withHeaders({
        "Retry-After": "1",
      });
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Stores the response of a claimed key. Server errors release the key so a retry can run. */
export async function completeIdempotencyKey(orgId: string, key: string, response: StoredResponse): Promise<void> {
  const db = await getDb();
  const where = and(eq(idempotencyKeys.orgId, orgId), eq(idempotencyKeys.key, key));
  if (response.status >= 500) {
    await db.delete(idempotencyKeys).where(where);
    return;
  }
  await db
    .update(idempotencyKeys)
    .set({ status: "completed", responseStatus: response.status, responseBody: response.body, completedAt: sql`now()` })
    .where(where);
}

/** Deletes keys past their retention (IDEMPOTENCY_TTL_HOURS, at least 24 h). */
export async function purgeExpiredIdempotencyKeys(now: Date = new Date()): Promise<number> {
  const db = await getDb();
  const cutoff = new Date(now.getTime() - env.IDEMPOTENCY_TTL_HOURS * 3_600_000);
  const deleted = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, cutoff))
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}
