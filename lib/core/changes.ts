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
  /** The last value handed out: every change takes the next one, whatever its organization. */
  counter: number;
  /** What an organization not in `byOrg` is at: the counter when `byOrg` was last emptied. */
  floor: number;
}

function state(): Generations {
  const holder = globalThis as unknown as Record<symbol, Generations | undefined>;
  return (holder[KEY] ??= { byOrg: new Map(), counter: 0, floor: 0 });
}

/** The organization's current generation. */
export function orgGeneration(orgId: string): number {
  const s = state();
  return s.byOrg.get(orgId) ?? s.floor;
}

/**
 * Something in the organization changed and committed. Past `MAX_ORGS` organizations the map is
 * emptied: every organization then reads as the floor, which no value read before a later change
 * can equal, so no stale read is kept.
 */
export function noteOrgChange(orgId: string): void {
  const s = state();
  if (s.byOrg.size >= MAX_ORGS && !s.byOrg.has(orgId)) {
    s.floor = s.counter;
    s.byOrg.clear();
  }
  s.byOrg.set(orgId, ++s.counter);
}
