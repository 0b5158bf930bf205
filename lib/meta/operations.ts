import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";

/** The document is built from the registry, which imports this module: loaded on first call. */
export const getOpenApiDocument = defineOperation(
  c.getOpenApiDocument,
  async () => (await import("./openapi")).openApiDocument(),
  {
    surfaces: { http: true, mcp: false, cli: false },
  },
);

/** The catalogue is derived from the registry too: loaded on first call. */
export const listMcpTools = defineOperation(
  c.listMcpTools,
  async ({ actor }) => {
    const { toolCatalogue } = await import("@/lib/mcp/catalog");
    const keyed = actor.type !== "anonymous";
    return {
      object: "list" as const,
      serverPath: "/mcp" as const,
      authenticated: keyed,
      tools: toolCatalogue(keyed ? actor : null),
    };
  },
  { surfaces: { http: true, mcp: false, cli: true } },
);
