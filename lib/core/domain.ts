import type { AnyOperation } from "./operation";

/**
 * A domain's manifest: the one thing `lib/registry.ts` imports from a domain folder. Operations
 * come from its `operations.ts`; workflow functions and event schemas join here as the domains'
 * `functions/` and `events.ts` arrive (the registry already collects them).
 */
export interface DomainManifest {
  /** Folder name, e.g. `api-keys`. */
  name: string;
  /** The OpenAPI tag of the domain (operations may carry their own, e.g. Threads under messages). */
  tag: string;
  operations: readonly AnyOperation[];
  /** Inngest functions of the domain (`lib/<domain>/functions/*.ts`). */
  functions?: readonly unknown[];
  /** Workflow event definitions of the domain (`lib/<domain>/events.ts`). */
  events?: readonly unknown[];
  /** Console permissions the domain adds beyond its scopes. */
  permissions?: readonly string[];
}

export function defineDomain<const M extends DomainManifest>(manifest: M): M {
  return manifest;
}

/** The operations exported by an `operations.ts` module (every `defineOperation` value), in order. */
export function operationsOf(module: Record<string, unknown>): AnyOperation[] {
  return Object.values(module).filter(
    (v): v is AnyOperation => typeof v === "object" && v !== null && "contract" in v && "handler" in v && typeof (v as AnyOperation).handler === "function",
  );
}
