import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { readRequestBody, requestBodyTooLargeMessage } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { Actor } from "@/lib/core/actor";
import { ApiError } from "@/lib/core/errors";
import { authorize, invoke, newRequestId } from "@/lib/core/invoke";
import { env, internalUrl, publicBaseUrl } from "@/lib/env";
import { keyCaller } from "@/lib/http/auth";
import { readClientIp } from "@/lib/http/client-ip";
import { errorResponse, REQUEST_ID_HEADER } from "@/lib/http/respond";
import { errorFields, log } from "@/lib/log";
import { recordRequest } from "@/lib/request-logs/recorder";
import { findTool, mayCall, mcpTools, toolInput } from "./catalog";

/**
 * The hosted MCP tool server: `POST /mcp`, streamable HTTP, stateless (a server and a transport
 * per request, JSON responses, no session id). In order: method (POST only, 405), the Origin
 * check (DNS rebinding: a browser page of another site is refused, 403), the bearer API key
 * through the HTTP adapter's own `keyCaller` (401/403/429, the same rate limit), the body (one
 * JSON-RPC message: a batch is refused, see `readMessage`), then the SDK's transport. Tools are the catalogue's (`./catalog.ts`); `tools/list` shows only those the key
 * may call and `tools/call` refuses the rest, both with the operation core's `authorize`; a call
 * is `invoke(operation, mcpActor, input)` like any surface.
 */

const SERVER_INFO = { name: "svc-messaging", version: "1.0.0" };
const INSTRUCTIONS =
  "Messaging tools of this service. Typical agent loop: list_inboxes, then wait_for_message (long-polls for the next inbound message), get_message or get_thread to read it, reply_in_thread or send_message to answer. Tools you do not see need scopes your API key lacks.";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Browsers send `Origin`; MCP clients do not. A request with an Origin is accepted only from this
 * deployment's own origins (PUBLIC_BASE_URL, INTERNAL_URL) or same-origin on a loopback host, so a
 * page on a rebinding domain cannot drive a local server.
 */
function refuseForeignOrigin(request: Request): void {
  const origin = request.headers.get("origin");
  if (origin === null) return;
  const own = new Set([publicBaseUrl(), internalUrl()].map((u) => new URL(u).host));
  const host = request.headers.get("host") ?? new URL(request.url).host;
  const parsed = URL.canParse(origin) ? new URL(origin) : null;
  const ok = parsed !== null && (own.has(parsed.host) || (parsed.host === host && LOOPBACK.has(parsed.hostname)));
  if (!ok)
    throw new ApiError(
      "not_permitted",
      "Requests from another site's pages are refused: the Origin is not this service's.",
    );
}

function toolResult(data: unknown): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(data, null, 2) }],
    structuredContent: data as Record<string, unknown>,
  };
}

function toolError(err: ApiError): CallToolResult {
  const body = err.toBody();
  return {
    isError: true,
    content: [{ type: "text", text: `${err.code}: ${err.message}${err.param ? ` (param: ${err.param})` : ""}` }],
    structuredContent: body as unknown as Record<string, unknown>,
  };
}

function buildServer(actor: Actor, ip: string | null): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: mcpTools()
      .filter((t) => mayCall(actor, t))
      .map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: { title: t.title, ...t.annotations },
      })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const tool = findTool(req.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${req.params.name}".`);
    try {
      authorize(tool.operation, actor);
    } catch (err) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Tool "${tool.name}" is not available to this API key: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const requestId = newRequestId();
    try {
      const result = await invoke(tool.operation, actor, toolInput(tool, req.params.arguments ?? {}), {
        requestId,
        ip,
        signal: extra.signal,
      });
      return toolResult(result.data);
    } catch (err) {
      if (err instanceof ApiError) return toolError(err);
      log.error("mcp tool failed", { requestId, tool: tool.name, ...errorFields(err) });
      return toolError(new ApiError("internal_error", `An unexpected error occurred. Reference: ${requestId}.`));
    }
  });
  return server;
}

export async function handleMcp(request: Request): Promise<Response> {
  const requestId = newRequestId();
  const startedAt = performance.now();
  const trace: McpTrace = { actor: null, ip: null, message: undefined };
  let response: Response;
  let errorCode: string | null = null;
  try {
    response = await serve(request, requestId, trace);
  } catch (err) {
    if (err instanceof ApiError) {
      errorCode = err.code;
      if (err.status === 401) err.withHeaders({ "WWW-Authenticate": 'Bearer realm="svc", error="invalid_token"' });
      response = errorResponse(err);
    } else {
      log.error("mcp request failed", { requestId, ...errorFields(err) });
      response = errorResponse(
        new ApiError("internal_error", `An unexpected error occurred. Reference: ${requestId}.`),
      );
    }
  }
  response.headers.set(REQUEST_ID_HEADER, requestId);
  if (trace.actor)
    recordRequest({
      source: "mcp",
      actor: trace.actor,
      method: request.method.toUpperCase(),
      url: new URL(request.url),
      status: response.status,
      errorCode,
      startedAt,
      requestId,
      ip: trace.ip,
      requestBody: trace.message,
      // The JSON-RPC answer is not copied (it streams to the client); the request names the tool and its arguments.
      responseBody: undefined,
    });
  return response;
}

/** What the request log needs from `serve`. */
interface McpTrace {
  actor: Actor | null;
  ip: string | null;
  message: unknown;
}

/** A JSON-RPC error response with no id, as the SDK's transport words its own refusals. */
function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

/**
 * The request's one JSON-RPC message, or the refusal to answer instead. A JSON-RPC batch (an
 * array) is refused with 400 and JSON-RPC error -32600: protocol revision 2025-06-18 removed
 * batching, and a batch would let one request carry up to 100 tool calls past the key's rate
 * limit, which counts requests. The SDK's transport would accept one, so the body is read here
 * and handed to it parsed. An unreadable or oversized body gets the transport's own answers.
 */
async function readMessage(request: Request): Promise<{ message: unknown } | Response> {
  const body = await readRequestBody(request, env.MAX_BODY_BYTES);
  if (body.tooLarge) return jsonRpcError(413, -32000, requestBodyTooLargeMessage(env.MAX_BODY_BYTES));
  let message: unknown;
  try {
    message = JSON.parse(body.text) as unknown;
  } catch {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
  }
  if (Array.isArray(message))
    return jsonRpcError(
      400,
      -32600,
      "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message per request.",
    );
  return { message };
}

async function serve(request: Request, requestId: string, trace: McpTrace): Promise<Response> {
  if (request.method !== "POST") {
    // Stateless: no standalone SSE stream (GET) and no session to end (DELETE).
    throw new ApiError(
      "method_not_allowed",
      "The MCP server is stateless: send JSON-RPC messages with POST.",
    ).withHeaders({ Allow: "POST" });
  }
  refuseForeignOrigin(request);
  const ip = readClientIp(request.headers);
  const client = request.headers.get("user-agent")?.slice(0, 200) ?? null;
  const { actor, headers } = await keyCaller(request, ip, requestId, (principal) => ({
    type: "mcp",
    principal,
    client,
  }));
  trace.actor = actor;
  trace.ip = ip;
  const read = await readMessage(request);
  if (read instanceof Response) {
    for (const [k, v] of Object.entries(headers)) read.headers.set(k, v);
    return read;
  }
  trace.message = read.message;
  const server = buildServer(actor, ip);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: env.MAX_BODY_BYTES,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, { parsedBody: read.message });
    for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
    return response;
  } finally {
    await server.close();
  }
}
