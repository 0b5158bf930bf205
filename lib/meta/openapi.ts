import { buildOpenApiDocument } from "@/lib/core/openapi";
import { env } from "@/lib/env";
import { HTTP_CONTRACTS } from "@/lib/registry";

let cached: Record<string, unknown> | undefined;

/** The document of this deployment's HTTP operations (the registry's), built once per process. */
export function openApiDocument(): Record<string, unknown> {
  cached ??= buildOpenApiDocument(HTTP_CONTRACTS, env.PUBLIC_BASE_URL);
  return cached;
}
