import type { Role } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import type { Scope } from "@/lib/auth/scopes";

/**
 * Who is calling an operation, whatever the surface. Adapters build one (the HTTP adapter from a
 * bearer key or a session cookie, the console from its session, the CLI and MCP from a key) and
 * hand it to `invoke`; services keep seeing a `Principal` (organization, scopes, audit actor).
 */
export type Actor =
  | { type: "apiKey"; principal: Principal }
  | { type: "mcp"; principal: Principal; client: string | null }
  | {
      type: "user";
      userId: string;
      email: string | null;
      /** The organization the user acts in (console pages and actions); null for session operations that name it in the path. */
      org: { id: string; role: Role } | null;
      /** The user acting in `org` with the scopes of their role; null without an organization. */
      principal: Principal | null;
      ip: string | null;
    }
  | { type: "agent"; principal: Principal; agentId: string }
  | { type: "system"; job: string; principal: Principal | null }
  | { type: "anonymous"; ip: string | null };

export type ActorType = Actor["type"];

/** The principal services see, or null for actors outside any organization. */
export function principalOf(actor: Actor): Principal | null {
  return actor.type === "anonymous" ? null : actor.principal;
}

/** The scopes the actor holds in its organization (a key's, or a console role's). */
export function scopesOf(actor: Actor): ReadonlySet<Scope> {
  return principalOf(actor)?.scopes ?? new Set();
}

/** The audit row's actor string: `api_key:<id>`, `mcp:<keyId>`, `user:<id>`, `agent:agt_…`, `system:<job>`. */
export function actorString(actor: Actor): string {
  switch (actor.type) {
    case "apiKey":
      return actor.principal.actor;
    case "mcp":
      return `mcp:${actor.principal.apiKeyId ?? actor.principal.userId}`;
    case "user":
      return `user:${actor.userId}`;
    case "agent":
      return `agent:${actor.agentId}`;
    case "system":
      return `system:${actor.job}`;
    case "anonymous":
      return "anonymous";
  }
}

/** Who to write in an audit row: actor string and client address. */
export function auditActorOf(actor: Actor): { actor: string; ip: string | null } {
  const principal = principalOf(actor);
  return {
    actor: actorString(actor),
    ip: principal?.ip ?? (actor.type === "user" || actor.type === "anonymous" ? actor.ip : null),
  };
}

/** The signed-in console user as organization operations take them. */
export interface SessionCaller {
  userId: string;
  email: string | null;
  /** Audit actor `user:<id>`. */
  actor: string;
  ip: string | null;
}

export function sessionCallerOf(actor: Extract<Actor, { type: "user" }>): SessionCaller {
  return { userId: actor.userId, email: actor.email, actor: `user:${actor.userId}`, ip: actor.ip };
}

/** An API key's actor (HTTP, CLI): the principal `authenticate` resolved. */
export const apiKeyActor = (principal: Principal): Actor => ({ type: "apiKey", principal });

/** A deployment job acting on its own behalf (bootstrap, recovery, workflows). */
export const systemActor = (job: string, principal: Principal | null = null): Actor => ({
  type: "system",
  job,
  principal,
});
