import { z } from "zod";
import type { Actor } from "@/lib/core/actor";
import type { InvokeInput } from "@/lib/core/invoke";
import { authorize } from "@/lib/core/invoke";
import type { AnyOperation } from "@/lib/core/operation";
import { OPERATIONS } from "@/lib/registry";

/**
 * The MCP tools, derived from the registry: every live operation an API key can call (scope or
 * any-key access, not a binary download) whose `surfaces.mcp` is on. A tool's input is one flat
 * object: the contract's path parameters, query fields and body fields side by side (no contract
 * has a name in two of them; `toolInput` splits them back). Transport-free: the discovery
 * operation (`GET /v1/mcp/tools`) and the tool server (`lib/mcp/server.ts`) both read it.
 */

type JsonSchema = Record<string, unknown>;

export interface McpTool {
  name: string;
  title: string;
  description: string;
  operation: AnyOperation;
  /** Scopes a key needs ([] for any valid key). */
  requiredScopes: string[];
  inputSchema: JsonSchema & { type: "object" };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** `sendMessage` → `send_message`. */
export const toolNameOf = (operationId: string) => operationId.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();

function inputSchemaOf(op: AnyOperation): McpTool["inputSchema"] {
  const c = op.contract;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const part of [c.params, c.query, c.body]) {
    if (!part) continue;
    const json = z.toJSONSchema(part, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as JsonSchema;
    const props = (json.properties ?? {}) as Record<string, JsonSchema>;
    for (const [name, schema] of Object.entries(props)) {
      if (name in properties)
        throw new Error(
          `${op.id}: "${name}" is both a path/query parameter and a body field; MCP tools take one flat object`,
        );
      properties[name] = schema;
    }
    const req = (json.required ?? []) as string[];
    // Path parameters are always required; query and body fields as their schema says.
    required.push(...(part === c.params ? Object.keys(props) : req));
  }
  return {
    type: "object",
    properties,
    ...(required.length ? { required: [...new Set(required)] } : {}),
    additionalProperties: false,
  };
}

export function isMcpOperation(op: AnyOperation): boolean {
  const c = op.contract;
  return (
    Boolean(op.surfaces.mcp) && c.status === "live" && !c.binary && c.access !== "public" && c.access !== "session"
  );
}

function toolOf(op: AnyOperation): McpTool {
  const c = op.contract;
  const custom = typeof op.surfaces.mcp === "object" ? op.surfaces.mcp : {};
  const requiredScopes = c.access === "key" ? [] : [c.access];
  const needs = requiredScopes.length ? `Requires the "${requiredScopes[0]}" scope.` : "Any valid API key.";
  const readOnly = c.method === "GET";
  return {
    name: custom.name ?? toolNameOf(op.id),
    title: c.summary,
    description: custom.description ?? [c.summary + ".", c.description, needs].filter(Boolean).join("\n\n"),
    operation: op,
    requiredScopes,
    inputSchema: inputSchemaOf(op),
    annotations: {
      readOnlyHint: readOnly,
      destructiveHint: c.method === "DELETE",
      idempotentHint: readOnly || c.method === "PUT" || c.method === "DELETE",
      openWorldHint: op.id === "sendMessage" || op.id === "replyInThread",
    },
  };
}

let tools: readonly McpTool[] | undefined;

/** Every tool, in registry order (built once per process). */
export function mcpTools(): readonly McpTool[] {
  if (!tools) {
    const list = OPERATIONS.filter(isMcpOperation).map(toolOf);
    const names = new Set<string>();
    for (const t of list) {
      if (names.has(t.name)) throw new Error(`Duplicate MCP tool name ${t.name}`);
      names.add(t.name);
    }
    tools = list;
  }
  return tools;
}

export function findTool(name: string): McpTool | undefined {
  return mcpTools().find((t) => t.name === name);
}

/** Whether `actor` may call the tool: the operation core's own access check, nothing else. */
export function mayCall(actor: Actor, tool: McpTool): boolean {
  try {
    authorize(tool.operation, actor);
    return true;
  } catch {
    return false;
  }
}

/** A tool's flat arguments as the operation's input: path parameters, query and body apart. */
export function toolInput(tool: McpTool, args: Record<string, unknown>): InvokeInput {
  const c = tool.operation.contract;
  const params: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  const paramKeys = new Set(Object.keys(c.params?.shape ?? {}));
  const queryKeys = new Set(Object.keys(c.query?.shape ?? {}));
  for (const [k, v] of Object.entries(args)) {
    if (paramKeys.has(k)) params[k] = v;
    else if (queryKeys.has(k)) query[k] = v;
    else body[k] = v; // unknown names reach the body's strict schema, which names them in the error
  }
  // Query fields arrive as JSON values; the contract's query schemas read strings like a URL's.
  const queryStrings = Object.fromEntries(
    Object.entries(query).map(([k, v]) => [k, typeof v === "string" || Array.isArray(v) ? v : String(v)]),
  );
  return {
    params,
    query: queryStrings,
    body: c.body ? body : Object.keys(body).length ? body : undefined,
  };
}

/** The public catalogue (`GET /v1/mcp/tools`): every tool and its scopes; with a key, whether that key may call it. */
export function toolCatalogue(actor: Actor | null) {
  return mcpTools().map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    operationId: t.operation.id,
    requiredScopes: t.requiredScopes,
    inputSchema: t.inputSchema,
    ...(actor ? { callable: mayCall(actor, t) } : {}),
  }));
}
