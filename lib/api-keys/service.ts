import { and, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { apiKeys } from "@/db/schema";
import { invalidRequest, notFound } from "@/lib/core/errors";
import { type AuditActor, noAuditNeeded, recordAudit } from "@/lib/core/audit";
import type { Principal } from "@/lib/auth/principal";
import { expandScopes, isSubset, type Scope } from "@/lib/auth/scopes";
import type { ApiKey, CreateApiKeyInput, UpdateApiKeyInput } from "@/lib/api-keys/contracts";
import { assertMayManage, boundRestrictions } from "./restrictions";
import { generateSecret, hashSecret, type KeyEnvironment, secretPrefix } from "./secrets";
import { announceKeyChange, forgetKeys } from "./cache";

type Row = typeof apiKeys.$inferSelect;

export function toApiKey(row: Row): ApiKey {
  return {
    object: "api_key",
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    allowedIps: row.allowedIps,
    inboxIds: row.inboxIds,
    environment: row.environment,
  };
}

const dedupe = <T>(xs: readonly T[]) => [...new Set(xs)];

/** Inserts a key and its audit row; returns the key and its secret (shown once). */
export async function insertApiKey(
  tx: DbOrTx,
  who: AuditActor,
  input: {
    orgId: string;
    userId: string;
    name: string;
    scopes: readonly string[];
    environment?: KeyEnvironment | null;
    allowedIps?: readonly string[] | null;
    inboxIds?: readonly string[] | null;
  },
): Promise<{ apiKey: ApiKey; secret: string }> {
  const environment = input.environment ?? "live";
  const secret = generateSecret(environment);
  const [row] = await tx
    .insert(apiKeys)
    .values({
      orgId: input.orgId,
      userId: input.userId,
      name: input.name,
      prefix: secretPrefix(secret),
      secretHash: hashSecret(secret),
      scopes: dedupe(input.scopes),
      environment,
      allowedIps: input.allowedIps ? dedupe(input.allowedIps.map((s) => s.trim())) : null,
      inboxIds: input.inboxIds ? dedupe(input.inboxIds) : null,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  await recordAudit(tx, who, {
    orgId: row.orgId,
    action: "api_key.created",
    resourceType: "api_key",
    resourceId: row.id,
    metadata: { name: row.name, prefix: row.prefix, scopes: row.scopes, environment },
  });
  return { apiKey: toApiKey(row), secret };
}

export async function listApiKeys(db: DbOrTx, principal: Principal): Promise<{ apiKeys: ApiKey[] }> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.orgId, principal.orgId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return { apiKeys: rows.map(toApiKey) };
}

async function findKey(db: DbOrTx, principal: Principal, keyId: string): Promise<Row> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.orgId, principal.orgId), eq(apiKeys.id, keyId)));
  if (!row) throw notFound("API key", "keyId");
  return row;
}

export async function getApiKey(db: DbOrTx, principal: Principal, keyId: string): Promise<{ apiKey: ApiKey }> {
  return { apiKey: toApiKey(await findKey(db, principal, keyId)) };
}

/**
 * Creates a child key. Its scopes must be a subset of the caller's (bundles expanded); its
 * restrictions are the caller's or narrower (`restrictions.ts`).
 */
export async function createApiKey(
  db: DbOrTx,
  principal: Principal,
  input: CreateApiKeyInput,
): Promise<{ apiKey: ApiKey; secret: string }> {
  if (!isSubset(input.scopes, principal.scopes)) {
    const held: ReadonlySet<Scope> = principal.scopes;
    const extra = [...expandScopes(input.scopes)].filter((s) => !held.has(s));
    throw invalidRequest(`A key can only grant scopes it holds itself; this key lacks: ${extra.join(", ")}.`, "scopes");
  }
  return db.transaction(async (tx) => {
    const bounds = await boundRestrictions(tx, principal, input, "create");
    return insertApiKey(tx, principal, {
      orgId: principal.orgId,
      userId: principal.userId,
      name: input.name,
      scopes: input.scopes,
      environment: input.environment,
      allowedIps: bounds.allowedIps,
      inboxIds: bounds.inboxIds,
    });
  });
}

export async function updateApiKey(
  db: DbOrTx,
  principal: Principal,
  keyId: string,
  input: UpdateApiKeyInput,
): Promise<{ apiKey: ApiKey }> {
  return afterKeyChange(
    db.transaction(async (tx) => {
      assertMayManage(principal, await findKey(tx, principal, keyId), "change");
      const bounds = await boundRestrictions(tx, principal, input, "update");
      const patch: Partial<typeof apiKeys.$inferInsert> = {};
      if (input.name !== undefined) patch.name = input.name;
      if (bounds.allowedIps !== undefined) patch.allowedIps = bounds.allowedIps ? dedupe(bounds.allowedIps) : null;
      if (bounds.inboxIds !== undefined) patch.inboxIds = bounds.inboxIds ? dedupe(bounds.inboxIds) : null;
      const [row] = await tx
        .update(apiKeys)
        .set(patch)
        .where(and(eq(apiKeys.orgId, principal.orgId), eq(apiKeys.id, keyId)))
        .returning();
      if (!row) throw notFound("API key", "keyId");
      await recordAudit(tx, principal, {
        orgId: principal.orgId,
        action: "api_key.updated",
        resourceType: "api_key",
        resourceId: keyId,
        metadata: { changed: Object.keys(patch) },
      });
      await announceKeyChange(tx);
      return { apiKey: toApiKey(row) };
    }),
  );
}

/**
 * `active` → `revoked`. Idempotent: a revoked key is returned unchanged and audited once. Only keys
 * whose scopes the caller holds (403 otherwise).
 */
export async function revokeApiKey(db: DbOrTx, principal: Principal, keyId: string): Promise<{ apiKey: ApiKey }> {
  return afterKeyChange(
    db.transaction(async (tx) => {
      assertMayManage(principal, await findKey(tx, principal, keyId), "revoke");
      const [revoked] = await tx
        .update(apiKeys)
        .set({ status: "revoked", revokedAt: sql`now()` })
        .where(and(eq(apiKeys.orgId, principal.orgId), eq(apiKeys.id, keyId), eq(apiKeys.status, "active")))
        .returning();
      if (!revoked) {
        const existing = await findKey(tx, principal, keyId);
        noAuditNeeded("the key was already revoked");
        return { apiKey: toApiKey(existing) };
      }
      await recordAudit(tx, principal, {
        orgId: principal.orgId,
        action: "api_key.revoked",
        resourceType: "api_key",
        resourceId: keyId,
        metadata: { prefix: revoked.prefix },
      });
      await announceKeyChange(tx);
      return { apiKey: toApiKey(revoked) };
    }),
  );
}

/** A committed change to keys: this process forgets its cached keys (others hear `announceKeyChange`). */
async function afterKeyChange<T>(committed: Promise<T>): Promise<T> {
  const out = await committed;
  forgetKeys();
  return out;
}

/** The organization's active keys, counted by a scalar subquery (to select beside other figures). */
export function activeApiKeyCount(orgId: string) {
  return sql<number>`(select count(*)::int from ${apiKeys} where ${apiKeys.orgId} = ${orgId} and ${apiKeys.status} = 'active')`;
}
