import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { organizations as organizationsTable } from "@/db/schema";
import { activeApiKeyCount } from "@/lib/api-keys/service";
import { used } from "@/lib/http/rate-limit";
import type { Principal } from "@/lib/auth/principal";
import type { Whoami } from "@/lib/account/contracts";
import { storageSums, storageUsageOf } from "@/lib/buckets/usage";
import { env } from "@/lib/env";
import { organizationsFromJson, organizationsOfUserJson } from "@/lib/organizations/service";

function currentPeriod(now: Date): { start: string; end: string } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start: start.toISOString(), end: end.toISOString() };
}

/**
 * The whoami response: the calling key, its user and organization, limits and usage. Its figures
 * (the user's organizations, active keys, storage sums) come from one statement.
 */
export async function whoami(db: DbOrTx, principal: Principal, now: Date = new Date()): Promise<Whoami> {
  const [row] = await db
    .select({ organizations: organizationsOfUserJson(principal.userId), activeApiKeys: activeApiKeyCount(principal.orgId), ...storageSums(principal.orgId) })
    .from(organizationsTable)
    .where(eq(organizationsTable.id, principal.orgId));
  const organizations = organizationsFromJson(row?.organizations);
  const activeApiKeys = Number(row?.activeApiKeys ?? 0);
  const stored = await storageUsageOf(row ?? { messageBytes: 0, attachments: 0, files: 0, activeFileObjects: 0 });
  const current = organizations.find((o) => o.id === principal.orgId);
  const usedBytes = stored.breakdown.mailBodyBytes + stored.breakdown.attachmentBytes + stored.breakdown.fileBytes;
  return {
    userId: principal.userId,
    projectId: principal.orgId,
    apiKey: { id: principal.apiKeyId ?? "", scopes: [...principal.scopes].sort() },
    plan: "self-hosted",
    limits: {
      requestsPerMinute: env.RATE_LIMIT_PER_MINUTE,
      apiKeys: null,
      allowedIpsPerKey: 50,
      idempotencyKeyHours: env.IDEMPOTENCY_TTL_HOURS,
      maxRequestBytes: env.MAX_BODY_BYTES,
    },
    usage: { activeApiKeys, requestsThisMinute: used(principal.apiKeyId ?? principal.actor) },
    period: currentPeriod(now),
    notes: {
      selfHosted: true,
      rateLimitScope: "per API key, one-minute windows, shared by every server process",
      sharedDomain: env.SHARED_DOMAIN,
    },
    storage: {
      usedBytes,
      limitBytes: env.STORAGE_LIMIT_BYTES,
      remainingBytes: Math.max(0, env.STORAGE_LIMIT_BYTES - usedBytes),
      breakdown: stored.breakdown,
      backend: stored.backend,
      scanner: stored.scanner,
    },
    organization: { id: principal.orgId, role: current?.role ?? null },
    organizations: organizations.map((o) => ({ id: o.id, name: o.name, slug: o.slug, vanitySlug: o.vanitySlug, role: o.role })),
    letters: { printMode: "test" },
  };
}
