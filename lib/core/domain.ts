import type { InngestFunction } from "inngest";
import type { WorkflowEvent } from "@/lib/workflows/define";
import type { AnyOperation } from "./operation";

/**
 * A domain's manifest: the one thing `lib/registry.ts` imports from a domain folder. Operations
 * come from its `operations.ts`, workflow functions from its `functions/`, the workflow events they
 * handle from its `workflow-events.ts` (`defineWorkflowEvent`: a name and a zod payload schema).
 */
export interface DomainManifest {
  /** Folder name, e.g. `api-keys`. */
  name: string;
  /** The OpenAPI tag of the domain (operations may carry their own, e.g. Threads under messages). */
  tag: string;
  operations: readonly AnyOperation[];
  /** Inngest functions of the domain (`lib/<domain>/functions/*.ts`). */
  functions?: readonly InngestFunction.Any[];
  /** Workflow events the domain publishes and its functions handle (`lib/<domain>/workflow-events.ts`). */
  events?: readonly WorkflowEvent[];
  /** Console permissions the domain adds beyond its scopes. */
  permissions?: readonly string[];
}

export function defineDomain<const M extends DomainManifest>(manifest: M): M {
  return manifest;
}

/** The operations exported by an `operations.ts` module (every `defineOperation` value), in order. */
export function operationsOf(module: Record<string, unknown>): AnyOperation[] {
  return Object.values(module).filter(
    (v): v is AnyOperation =>
      typeof v === "object" &&
      v !== null &&
      "contract" in v &&
      "handler" in v &&
      typeof (v as AnyOperation).handler === "function",
  );
}
