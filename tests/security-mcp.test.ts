import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type McpTool, mcpTools } from "@/lib/mcp/catalog";
import { startAppServer, type AppServer } from "./app-server";
import { call, newKey, newOrg, type TestOrg } from "./harness";
import { paramNames, RESOURCE_FACTORIES } from "./resources";

/**
 * The generated security suite on the MCP surface: for every tool of the registry, without any
 * per-tool test code. The HTTP suite (tests/security.test.ts) covers the same operations over /v1;
 * tests/mcp.test.ts covers scopes (a tool outside the key's scopes is neither listed nor callable).
 * Here: an owner's resource is invisible to another organization's key (the tool answers the API's
 * `resource_not_found`, never the resource), a revoked or IP-restricted key never reaches a tool,
 * and the audit trail names the MCP actor.
 */
let app: AppServer;
beforeAll(async () => {
  app = await startAppServer();
});
afterAll(async () => {
  await app?.close();
});

type ToolResult = {
  isError?: boolean;
  structuredContent?: { error?: { code: string; type: string } } & Record<string, unknown>;
  content: { type: string; text?: string }[];
};

async function connect(secret: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "svc-security", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${secret}`, ...headers } },
    }),
  );
  return client;
}

/** A tool's arguments: the example body (when the operation takes one) plus the path parameters. */
function argumentsFor(tool: McpTool, ids: Record<string, string>): Record<string, unknown> {
  const c = tool.operation.contract;
  const example = c.body && c.example && typeof c.example === "object" ? (c.example as Record<string, unknown>) : {};
  return { ...example, ...ids };
}

const withPathParams = mcpTools().filter((t) => paramNames(t.operation.contract.path).length > 0);

test("the registry exposes MCP tools that take another organization's ids", () => {
  expect(withPathParams.length).toBeGreaterThan(5);
});

describe("MCP: another organization's ids are not found, for every tool that takes one", () => {
  let owner: TestOrg;
  let stranger: Client;
  beforeAll(async () => {
    owner = await newOrg();
    stranger = await connect((await newOrg()).secret);
  });
  afterAll(async () => {
    await stranger?.close();
  });

  test.each(withPathParams.map((t) => [t.name, t] as const))("%s", async (_name, tool) => {
    const ids: Record<string, string> = {};
    for (const name of paramNames(tool.operation.contract.path)) {
      const factory = RESOURCE_FACTORIES[name];
      if (!factory)
        throw new Error(
          `No resource factory for path parameter "${name}" (${tool.name}); add one to tests/resources.ts.`,
        );
      ids[name] = await factory(owner);
    }
    const result = (await stranger.callTool({ name: tool.name, arguments: argumentsFor(tool, ids) })) as ToolResult;
    expect(result.isError, JSON.stringify(result.structuredContent)).toBe(true);
    expect(result.structuredContent?.error).toMatchObject({ code: "resource_not_found" });
    // Nothing of the owner's resource leaks into the answer.
    for (const id of Object.values(ids)) expect(result.content[0]?.text ?? "").not.toContain(id);
  });
});

describe("MCP: keys that may not call anything never reach a tool", () => {
  test("a revoked key is refused at the transport (401), before any tool runs", async () => {
    const org = await newOrg();
    const k = await newKey(org, { scopes: ["admin"] });
    const client = await connect(k.secret);
    expect((await client.listTools()).tools.length).toBe(mcpTools().length);
    expect((await call("POST", `/v1/api-keys/${k.id}/revoke`, { key: org.secret })).status).toBe(200);
    await expect(client.callTool({ name: "get_whoami", arguments: {} })).rejects.toThrow(/401|invalid_api_key/);
    await expect(connect(k.secret)).rejects.toThrow(/401|invalid_api_key/);
  });

  test("a key whose IP allowlist excludes the caller is refused (403)", async () => {
    const org = await newOrg();
    const k = await newKey(org, { scopes: ["admin"], allowedIps: ["203.0.113.0/24"] });
    await expect(connect(k.secret)).rejects.toThrow(/403|not_permitted/);
  });

  test("a change made through a tool is audited with the MCP actor", async () => {
    const org = await newOrg();
    const client = await connect(org.secret);
    const created = (await client.callTool({
      name: "create_api_key",
      arguments: { name: "from-mcp", scopes: ["inboxes:read"] },
    })) as ToolResult;
    expect(created.isError).toBeFalsy();
    const id = (created.structuredContent as { apiKey: { id: string } }).apiKey.id;
    // The secret is in the tool result (shown once), never in the audit row.
    const secret = (created.structuredContent as { secret: string }).secret;
    const audit = await call("GET", `/v1/audit-logs?resourceId=${id}`, { key: org.secret });
    expect(audit.status).toBe(200);
    expect(audit.body.logs).toHaveLength(1);
    expect(audit.body.logs[0].actor).toMatch(/^mcp:/);
    expect(JSON.stringify(audit.body)).not.toContain(secret);
    await client.close();
  });
});
