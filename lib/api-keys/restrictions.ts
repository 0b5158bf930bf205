import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { apiKeys, inboxes } from "@/db/schema";
import { entryWithin } from "@/lib/auth/ip";
import type { Principal } from "@/lib/auth/principal";
import { expandScopes } from "@/lib/auth/scopes";
import { notFound, notPermitted } from "@/lib/core/errors";

/**
 * What a key may hand out or change (issue 10, items 4 and 5). Restrictions stick: a key restricted
 * to inboxes or source addresses can give other keys (its children, itself, any key it edits) only
 * restrictions inside its own — an omitted field inherits the caller's, `null`/`[]` (unrestricted)
 * is refused. A key changes or revokes only keys whose scopes it holds itself. Callers that are not
 * keys (console users) carry no restrictions; their role's scopes decide.
 */

export interface Restrictions {
  inboxIds: readonly string[] | null;
  allowedIps: readonly string[] | null;
}

const restricted = (list: readonly string[] | null | undefined): list is readonly string[] => !!list && list.length > 0;

/** The calling key's own restrictions (none for callers that are not keys). */
export async function callerRestrictions(db: DbOrTx, principal: Principal): Promise<Restrictions> {
  if (!principal.apiKeyId) return { inboxIds: null, allowedIps: null };
  const [row] = await db
    .select({ inboxIds: apiKeys.inboxIds, allowedIps: apiKeys.allowedIps })
    .from(apiKeys)
    .where(and(eq(apiKeys.orgId, principal.orgId), eq(apiKeys.id, principal.apiKeyId)));
  // The key authenticated this request; fall back to what the principal carries if it vanished since.
  return row ?? { inboxIds: principal.inboxIds, allowedIps: null };
}

/**
 * The value of one restriction field after the caller's bounds: `undefined` (omitted) inherits the
 * caller's on create and leaves the key unchanged on update; a list must lie inside the caller's.
 */
function bounded(
  field: "inboxIds" | "allowedIps",
  requested: readonly string[] | null | undefined,
  own: readonly string[] | null,
  mode: "create" | "update",
  within: (entry: string, own: readonly string[]) => boolean,
): readonly string[] | null | undefined {
  if (!restricted(own)) return mode === "create" ? (requested ?? null) : requested;
  if (requested === undefined) return mode === "create" ? own : undefined;
  const what = field === "inboxIds" ? "inboxes" : "source addresses";
  if (!restricted(requested)) {
    throw notPermitted(
      `This key is restricted to ${what} (${field}); it cannot give a key unrestricted ${field}. Omit ${field} to inherit its own, or name a subset.`,
      field,
    );
  }
  requested.forEach((entry, i) => {
    if (!within(entry, own))
      throw notPermitted(
        `"${entry}" is outside this key's own ${field}; a key can only narrow its restrictions, never widen them.`,
        `${field}[${i}]`,
      );
  });
  return requested;
}

/** Inbox ids must name inboxes of the organization (404 naming the first that does not). */
async function checkInboxesOwned(db: DbOrTx, orgId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await db
    .select({ id: inboxes.id })
    .from(inboxes)
    .where(and(eq(inboxes.orgId, orgId), inArray(inboxes.id, [...new Set(ids)])));
  const owned = new Set(found.map((r) => r.id));
  const missing = ids.findIndex((id) => !owned.has(id));
  if (missing >= 0) throw notFound("inbox in this organization", `inboxIds[${missing}]`);
}

/**
 * The restrictions a key gets (create) or is changed to (update; `undefined` = unchanged), checked
 * against the caller's own: 403 `not_permitted` for a widening, 404 `resource_not_found` for an
 * inbox id of another organization or none.
 */
export async function boundRestrictions(
  db: DbOrTx,
  principal: Principal,
  requested: { inboxIds?: readonly string[] | null; allowedIps?: readonly string[] | null },
  mode: "create" | "update",
): Promise<{ inboxIds?: readonly string[] | null; allowedIps?: readonly string[] | null }> {
  const own = await callerRestrictions(db, principal);
  const inboxIds = bounded("inboxIds", requested.inboxIds, own.inboxIds, mode, (id, list) => list.includes(id));
  const allowedIps = bounded(
    "allowedIps",
    requested.allowedIps ? requested.allowedIps.map((s) => s.trim()) : requested.allowedIps,
    own.allowedIps,
    mode,
    entryWithin,
  );
  // Only ids the caller named are checked: inherited ones were checked when they were set.
  if (requested.inboxIds && requested.inboxIds.length > 0)
    await checkInboxesOwned(db, principal.orgId, requested.inboxIds);
  return { inboxIds, allowedIps };
}

/** A key changes or revokes only keys whose scopes (bundles expanded) it holds itself: 403 otherwise. */
export function assertMayManage(
  principal: Principal,
  target: { scopes: readonly string[] },
  verb: "change" | "revoke",
): void {
  const beyond = [...expandScopes(target.scopes)].filter((s) => !principal.scopes.has(s));
  if (beyond.length > 0) {
    throw notPermitted(
      `A key can only ${verb} keys whose scopes it holds itself; that key also has: ${beyond.join(", ")}.`,
      "keyId",
    );
  }
}
