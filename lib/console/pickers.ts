import { BUNDLES, type Scope, SCOPES } from "@/lib/auth/scopes";
import { EMITTED_EVENT_TYPES, type EventType } from "@/lib/events/contracts";
import { OPERATIONS } from "@/lib/registry";

/**
 * What the console's pickers offer: only what this build can use. A scope is offered when some
 * operation of the registry requires it (or, for a bundle, one of the scopes it grants; `admin`
 * always); scopes of capabilities that do not exist yet (phone, letters, …) are left out, though the
 * API still accepts them. Event types are those the product emits (EMITTED_EVENT_TYPES).
 */

export interface ScopeGroup {
  /** The capability: the part of the scope before the colon (`messages`, `inboxes`, …). */
  name: string;
  scopes: Scope[];
}

export interface ScopePresets {
  full: Scope[];
  sending: Scope[];
  readOnly: Scope[];
}

export interface ScopeChoices {
  groups: ScopeGroup[];
  presets: ScopePresets;
  /** What each offered bundle grants, for its description. */
  bundles: Partial<Record<Scope, readonly Scope[]>>;
}

function requiredScopes(): Set<Scope> {
  const used = new Set<Scope>();
  const all = new Set<string>(SCOPES);
  for (const op of OPERATIONS) {
    const access = op.contract.access;
    if (typeof access === "string" && all.has(access)) used.add(access as Scope);
  }
  return used;
}

let cached: ScopeChoices | null = null;

export function scopeChoices(): ScopeChoices {
  if (cached) return cached;
  const used = requiredScopes();
  const offered = SCOPES.filter((s) => s === "admin" || used.has(s) || (BUNDLES[s] ?? []).some((g) => used.has(g)));
  const groups = new Map<string, Scope[]>();
  for (const s of offered) {
    const name = s === "admin" ? "everything" : (s.split(":")[0] ?? s);
    groups.set(name, [...(groups.get(name) ?? []), s]);
  }
  const bundles: Partial<Record<Scope, readonly Scope[]>> = {};
  for (const s of offered) if (BUNDLES[s] && s !== "admin") bundles[s] = BUNDLES[s];
  const sending = (["messages:send", "inboxes:read", "templates:read"] as const).filter((s) => used.has(s));
  cached = {
    groups: [...groups].map(([name, scopes]) => ({ name, scopes })),
    presets: { full: ["admin"], sending, readOnly: offered.filter((s) => s.endsWith(":read")) },
    bundles,
  };
  return cached;
}

/** The event types a webhook can subscribe to in the console, grouped by resource (`message`, `domain`, …). */
export function eventTypeGroups(): { name: string; types: EventType[] }[] {
  const groups = new Map<string, EventType[]>();
  for (const t of EMITTED_EVENT_TYPES) {
    const name = t.split(".")[0] ?? t;
    groups.set(name, [...(groups.get(name) ?? []), t]);
  }
  return [...groups].map(([name, types]) => ({ name, types }));
}
