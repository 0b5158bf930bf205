import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";

/** The document is built from the registry, which imports this module: loaded on first call. */
export const getOpenApiDocument = defineOperation(c.getOpenApiDocument, async () => (await import("./openapi")).openApiDocument(), {
  surfaces: { http: true, mcp: false, cli: false },
});
