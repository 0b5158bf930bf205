import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { getDb } from "@/db";
import { apiKeys } from "@/db/schema";
import { ApiError } from "@/lib/core/errors";
import { expandScopesOnce } from "@/lib/auth/scopes";
import type { Principal } from "@/lib/auth/principal";
import { ipAllowed } from "@/lib/auth/ip";
import { errorFields, log } from "@/lib/log";
import { cachedKey, rememberKey } from "./cache";
import { SECRET_PATTERN, hashMatches, hashSecret, secretPrefix } from "./secrets";

/** lastUsedAt is precise to this interval; refreshing it costs one write per key per interval. */
const LAST_USED_RESOLUTION_MS = 60_000;
const lastTouched = new Map<string, number>();

function touch(keyId: string, now: number): void {
  const previous = lastTouched.get(keyId);
  if (previous !== undefined && now - previous < LAST_USED_RESOLUTION_MS) return;
  lastTouched.set(keyId, now);
  const stale = new Date(now - LAST_USED_RESOLUTION_MS);
  void getDb()
    .then((db) =>
      db
        .update(apiKeys)
        .set({ lastUsedAt: sql`now()` })
        .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale)))),
    )
    .catch((err: unknown) => {
      lastTouched.delete(keyId);
      log.warn("lastUsedAt update failed", { keyId, ...errorFields(err) });
    });
}

const invalidKey = () => new ApiError("invalid_api_key", "The API key is not valid.");

/**
 * Resolves `Authorization: Bearer <secret>` to a principal, or throws the 401/403 the caller
 * deserves: missing, malformed, unknown or revoked key (401); source IP not on the key's
 * allowlist (403 `not_permitted`).
 */
export async function authenticate(
  authorization: string | null,
  ip: string | null,
  requestId: string,
): Promise<Principal> {
  if (!authorization) {
    throw new ApiError("missing_api_key", "No API key: send it as `Authorization: Bearer <key>`.");
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const secret = match?.[1];
  if (!secret || !SECRET_PATTERN.test(secret)) throw invalidKey();

  const hash = hashSecret(secret);
  const now = Date.now();
  let key = cachedKey(hash, now);
  if (!key) {
    const db = await getDb();
    const candidates = await db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.prefix, secretPrefix(secret)));
    key = candidates.find((row) => hashMatches(hash, row.secretHash));
    if (!key) throw invalidKey();
    rememberKey(hash, key, now);
  }
  if (key.status !== "active") throw new ApiError("invalid_api_key", "The API key has been revoked.");

  if (key.allowedIps && key.allowedIps.length > 0 && !ipAllowed(ip, key.allowedIps)) {
    throw new ApiError(
      "not_permitted",
      `Requests from ${ip ?? "an unknown address"} are not on this key's IP allowlist.`,
    );
  }
  touch(key.id, now);
  return {
    orgId: key.orgId,
    userId: key.userId,
    apiKeyId: key.id,
    scopes: expandScopesOnce(key.scopes),
    inboxIds: key.inboxIds,
    actor: `api_key:${key.id}`,
    ip,
    requestId,
  };
}
