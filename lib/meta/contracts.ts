import { z } from "zod";
import { defineContract } from "@/lib/core/contract";

export const getOpenApiDocument = defineContract({
  id: "getOpenApiDocument",
  method: "GET",
  path: "/v1/openapi.json",
  access: "public",
  tag: "Meta",
  summary: "OpenAPI document",
  description: "The OpenAPI 3.1.0 document of this API, generated from the operation contracts.",
  response: z.record(z.string(), z.unknown()),
});

const mcpToolSchema = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  operationId: z.string(),
  requiredScopes: z.array(z.string()),
  inputSchema: z.record(z.string(), z.unknown()),
  callable: z.boolean().optional(),
});

export const listMcpTools = defineContract({
  id: "listMcpTools",
  method: "GET",
  path: "/v1/mcp/tools",
  access: "public",
  acceptsKey: true,
  tag: "Meta",
  summary: "MCP tool discovery",
  description:
    "Every tool of the hosted MCP server (`POST /mcp`, streamable HTTP, `Authorization: Bearer <API key>`) with its input schema and the scopes it requires. With an API key, each tool also says whether that key may call it (`callable`); the server lists and runs only those.",
  response: z.object({
    object: z.literal("list"),
    serverPath: z.literal("/mcp"),
    authenticated: z.boolean(),
    tools: z.array(mcpToolSchema),
  }),
});
