import type { Scope } from "./scopes";

/**
 * Who is calling, as services see it: no HTTP types. Built by the API kernel from an API key,
 * by the console from a session, and by the CLI for system actions.
 */
export interface Principal {
  orgId: string;
  userId: string;
  /** The API key acting, or null for console sessions and system actors. */
  apiKeyId: string | null;
  /** Expanded scopes (bundles resolved). */
  scopes: ReadonlySet<Scope>;
  /** Inboxes the key may send as; null means unrestricted within the organization. */
  inboxIds: readonly string[] | null;
  /** Audit actor: `api_key:<id>`, `user:<id>` or `system:<name>`. */
  actor: string;
  ip: string | null;
  requestId: string | null;
}

/** True when the principal may act as `inboxId` (the key's `inboxIds` restriction). */
export function mayUseInbox(p: Principal, inboxId: string): boolean {
  return p.inboxIds === null || p.inboxIds.length === 0 || p.inboxIds.includes(inboxId);
}
