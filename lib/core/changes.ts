/**
 * An in-process generation per organization, bumped after an operation that may change something
 * (any method but GET) completes through `invoke`, i.e. after its transaction committed. Read-side
 * caches of an organization's figures (`lib/account/whoami.ts`) keep what they read only while the
 * generation they started with is still current, so a change made through this process is seen by
 * the next read. Changes made elsewhere (another process, a workflow, inbound mail) are bounded by
 * the cache's own time to live. Kept on `globalThis`: Next.js bundles routes separately.
 */
const KEY = Symbol.for("svc.orgGenerations");
const MAX_ORGS = 10_000;

interface Generations {
  byOrg: Map<string, number>;
  /** What an organization not in `byOrg` is at: above every value handed out before a reset. */
  base: number;
}

function state(): Generations {
  const holder = globalThis as unknown as Record<symbol, Generations | undefined>;
  return (holder[KEY] ??= { byOrg: new Map(), base: 0 });
}

/** The organization's current generation. */
export function orgGeneration(orgId: string): number {
  const s = state();
  return s.byOrg.get(orgId) ?? s.base;
}

/** Something in the organization changed and committed. */
export function noteOrgChange(orgId: string): void {
  const s = state();
  const next = orgGeneration(orgId) + 1;
  if (s.byOrg.size >= MAX_ORGS && !s.byOrg.has(orgId)) {
    s.base = Math.max(next, ...s.byOrg.values()) + 1;
    s.byOrg.clear();
  }
  s.byOrg.set(orgId, Math.max(next, s.base));
}
