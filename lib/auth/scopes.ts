import { z } from "zod";

/** Every scope value of the specification, in its order. */
export const SCOPES = [
  "account:read",
  "account:write",
  "admin",
  "agents:read",
  "agents:write",
  "audiences:read",
  "audiences:write",
  "buckets:read",
  "buckets:write",
  "budgets:read",
  "budgets:write",
  "compliance:read",
  "compliance:write",
  "contacts:read",
  "contacts:write",
  "domains:read",
  "domains:write",
  "events:read",
  "events:write",
  "inboxes:read",
  "inboxes:write",
  "keys:read",
  "keys:write",
  "letters",
  "letters:read",
  "letters:send",
  "messages",
  "messages:read",
  "messages:send",
  "phone",
  "phone:call",
  "phone:read",
  "phone:write",
  "templates:read",
  "templates:write",
  "webhooks:read",
  "webhooks:write",
] as const;

export type Scope = (typeof SCOPES)[number];
export const scopeSchema = z.enum(SCOPES);

/** Bundles and what they grant; `admin` grants every scope. */
export const BUNDLES: Partial<Record<Scope, readonly Scope[]>> = {
  messages: ["messages:read", "messages:send"],
  letters: ["letters:read", "letters:send"],
  phone: ["phone:read", "phone:write", "phone:call"],
  admin: SCOPES,
};

/** The set of scopes a list of granted scopes amounts to, bundles expanded. */
export function expandScopes(granted: readonly string[]): Set<Scope> {
  const out = new Set<Scope>();
  for (const raw of granted) {
    const parsed = scopeSchema.safeParse(raw);
    if (!parsed.success) continue;
    out.add(parsed.data);
    for (const s of BUNDLES[parsed.data] ?? []) out.add(s);
  }
  return out;
}

const expanded = new WeakMap<readonly string[], ReadonlySet<Scope>>();

/**
 * The same expansion, remembered for this very list (an API key's cached row asks on every request);
 * the set is shared, so it is read-only.
 */
export function expandScopesOnce(granted: readonly string[]): ReadonlySet<Scope> {
  let set = expanded.get(granted);
  if (!set) {
    set = expandScopes(granted);
    expanded.set(granted, set);
  }
  return set;
}

/** True when `requested` grants nothing outside `held` (the child-key subset rule). */
export function isSubset(requested: readonly string[], held: ReadonlySet<Scope>): boolean {
  for (const s of expandScopes(requested)) if (!held.has(s)) return false;
  return true;
}
