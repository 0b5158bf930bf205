import { CONTRACTS } from "@/lib/contracts";
import { env } from "@/lib/env";
import { buildOpenApiDocument } from "./openapi";

let cached: Record<string, unknown> | undefined;

/** The document for this deployment's contracts, built once per process. */
export function openApiDocument(): Record<string, unknown> {
  cached ??= buildOpenApiDocument(CONTRACTS, env.PUBLIC_BASE_URL);
  return cached;
}
