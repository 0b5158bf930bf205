import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { organizations as organizationsTable } from "@/db/schema";
import { activeApiKeyCount } from "@/lib/api-keys/service";
import { printProvider } from "@/lib/providers/print";
import { used } from "@/lib/http/rate-limit";
import type { Principal } from "@/lib/auth/principal";
import type { Whoami } from "@/lib/account/contracts";
import { storageSums, storageUsageOf } from "@/lib/buckets/usage";
import { env } from "@/lib/env";
import { orgGeneration } from "@/lib/core/changes";
import { organizationsFromJson, organizationsOfUserJson } from "@/lib/organizations/service";

/** The calendar month (UTC) `now` falls in; the last one computed is kept (it changes once a month). */
let lastPeriod: { from: number; until: number; period: { start: string; end: string } } | null = null;
function currentPeriod(now: Date): { start: string; end: string } {
  const t = now.getTime();
  if (lastPeriod && t >= lastPeriod.from && t < lastPeriod.until) return lastPeriod.period;
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  lastPeriod = {
    from: start.getTime(),
    until: end.getTime(),
    period: { start: start.toISOString(), end: end.toISOString() },
  };
  return lastPeriod.period;
}

/**
 * whoami's figures (the user's organizations, active keys, storage sums) are read in one statement
 * and kept for `FIGURES_TTL_MS` per organization and user, so a client polling whoami does not
 * cost a query per request. A change made through this process (any operation but a GET,
 * `lib/core/changes.ts`) is seen by the next whoami; one made elsewhere (another server process,
 * a workflow, inbound mail) within `FIGURES_TTL_MS`.
 */
const FIGURES_TTL_MS = 1_000;
const MAX_FIGURES = 10_000;
type Figures = Awaited<ReturnType<typeof readFigures>>;
type FiguresCache = Map<string, { figures: Figures; generation: number; until: number }>;
const FIGURES = Symbol.for("svc.whoamiFigures");
function figuresCache(): FiguresCache {
  const holder = globalThis as unknown as Record<symbol, FiguresCache | undefined>;
  return (holder[FIGURES] ??= new Map() as FiguresCache);
}

async function readFigures(db: DbOrTx, principal: Principal) {
  const [row] = await db
    .select({
      organizations: organizationsOfUserJson(principal.userId),
      activeApiKeys: activeApiKeyCount(principal.orgId),
      ...storageSums(principal.orgId),
    })
    .from(organizationsTable)
    .where(eq(organizationsTable.id, principal.orgId));
  return row;
}

async function figuresOf(db: DbOrTx, principal: Principal): Promise<Figures> {
  const key = `${principal.orgId}:${principal.userId}`;
  const cache = figuresCache();
  const generation = orgGeneration(principal.orgId);
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.generation === generation && hit.until > now) return hit.figures;
  const figures = await readFigures(db, principal);
  // Kept only if nothing changed in the organization while it was read.
  if (orgGeneration(principal.orgId) === generation) {
    if (cache.size >= MAX_FIGURES) cache.clear();
    cache.set(key, { figures, generation, until: now + FIGURES_TTL_MS });
  }
  return figures;
}

/** The whoami response: the calling key, its user and organization, limits and usage. */
export async function whoami(db: DbOrTx, principal: Principal, now: Date = new Date()): Promise<Whoami> {
  const row = await figuresOf(db, principal);
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
    organizations: organizations.map((o) => ({
      id: o.id,
      name: o.name,
      slug: o.slug,
      vanitySlug: o.vanitySlug,
      role: o.role,
    })),
    letters: { printMode: printProvider().mode },
  };
}
