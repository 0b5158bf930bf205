import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mcpTools } from "@/lib/mcp/catalog";
import { OPERATIONS } from "@/lib/registry";
import { startAppServer, type AppServer } from "./app-server";
import { call, newInbox, newKey, newOrg, type TestOrg } from "./harness";

/**
 * The hosted MCP server through the SDK's own client over real HTTP: a narrow key sees and calls
 * only its tools, an agent loop (list inboxes, wait for mail, read, reply) works end to end, and
 * every tool of the registry is refused to a key without its scope.
 */
let app: AppServer;
beforeAll(async () => {
  app = await startAppServer();
});
afterAll(async () => {
  await app?.close();
});

async function connect(secret: string | null, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "svc-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
    requestInit: { headers: { ...(secret ? { Authorization: `Bearer ${secret}` } : {}), ...headers } },
  });
  await client.connect(transport);
  return client;
}

type ToolResult = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };

describe("MCP tool server", () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await newOrg();
  });

  test("a narrow key lists only its tools, calls send, and is refused a tool outside its scopes", async () => {
    const inbox = await newInbox(org, "mcp-narrow");
    const other = await newInbox(org, "mcp-peer");
    const narrow = await newKey(org, { scopes: ["inboxes:read", "messages:send"] });
    const client = await connect(narrow.secret);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual([
      "batch_delete_messages",
      "cancel_outbound_email",
      "edit_telegram_message",
      "get_inbox",
      "get_inbox_schema",
      "get_slack_app",
      "get_whoami",
      "list_inboxes",
      "list_slack_apps",
      "react_telegram_message",
      "reply_in_thread",
      "send_message",
      "unreact_telegram_message",
    ]);
    const send = tools.find((t) => t.name === "send_message");
    expect(send?.inputSchema).toMatchObject({ type: "object", required: expect.arrayContaining(["inboxId", "to"]) });
    expect(send?.description).toContain('"messages:send"');

    const listed = (await client.callTool({ name: "list_inboxes", arguments: {} })) as ToolResult;
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent.inboxes.map((i: { id: string }) => i.id)).toEqual(
      expect.arrayContaining([inbox.id, other.id]),
    );
    expect(JSON.parse(listed.content[0]?.text ?? "")).toEqual(listed.structuredContent);

    const sent = (await client.callTool({
      name: "send_message",
      arguments: { inboxId: inbox.id, to: other.address, subject: "From MCP", text: "Hello over MCP" },
    })) as ToolResult;
    expect(sent.isError).toBeFalsy();
    expect(sent.structuredContent).toMatchObject({ status: "sent", channel: "a2a" });
    expect(sent.content[0]).toMatchObject({ type: "text" });
    // The send is the API's: the admin key reads it back over HTTP, and the audit actor is `mcp:`.
    const back = await call("GET", `/v1/messages/${sent.structuredContent.id}`, { key: org.secret });
    expect(back.body.message).toMatchObject({ subject: "From MCP", direction: "outbound" });

    // Out of scope: not listed, and a call is a protocol error naming the missing scope.
    await expect(
      client.callTool({ name: "create_api_key", arguments: { name: "x", scopes: ["admin"] } }),
    ).rejects.toThrow(/keys:write/);
    await expect(client.callTool({ name: "list_messages", arguments: {} })).rejects.toThrow(/messages:read/);
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool/);

    // Input errors come back as tool errors with the API's envelope, in text and structured form.
    const bad = (await client.callTool({
      name: "send_message",
      arguments: { inboxId: inbox.id, to: ["not an address"], text: "x" },
    })) as ToolResult;
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent.error).toMatchObject({ code: "invalid_request", param: "to[0]" });
    expect(bad.content[0]?.text).toContain("invalid_request");
    await client.close();
  });

  test("an agent loop: wait for the next inbound message, read its thread, reply in it", async () => {
    const mine = await newInbox(org, "mcp-agent");
    const peerOrg = await newOrg();
    const peer = await newInbox(peerOrg, "mcp-human");
    const agentKey = await newKey(org, { scopes: ["inboxes:read", "messages:read", "messages:send", "events:read"] });
    const client = await connect(agentKey.secret);

    const sendToMe = async (subject: string) => {
      const res = await call("POST", "/v1/messages", {
        key: peerOrg.secret,
        body: { inboxId: peer.id, to: mine.address, subject, text: "What is the code?" },
      });
      expect(res.status).toBe(200);
    };
    // A first message, then the stream's head as the agent's cursor.
    await sendToMe("Hello");
    const head = (await client.callTool({
      name: "list_events",
      arguments: { inboxId: mine.id, tail: "true" },
    })) as ToolResult;
    const since = head.structuredContent.pagination.nextCursor as string;
    expect(since).toBeTruthy();
    // The wait and the next message race; either way the wait returns that message (after `since`).
    const [result] = await Promise.all([
      client.callTool({
        name: "wait_for_message",
        arguments: { inboxId: mine.id, since, timeoutSeconds: 60 },
      }) as Promise<ToolResult>,
      sendToMe("Question"),
    ]);
    expect(result.isError).toBeFalsy();
    const event = result.structuredContent.event;
    expect(event).toMatchObject({ type: "message.received", inboxId: mine.id, data: { subject: "Question" } });
    expect(typeof result.structuredContent.cursor).toBe("string");

    const thread = (await client.callTool({
      name: "get_thread",
      arguments: { threadId: event.threadId },
    })) as ToolResult;
    expect(thread.structuredContent.thread.messages[0]).toMatchObject({ subject: "Question", direction: "inbound" });
    const listed = (await client.callTool({
      name: "list_threads",
      arguments: { inboxId: mine.id, limit: 5 },
    })) as ToolResult;
    expect(listed.structuredContent.threads.map((t: { id: string }) => t.id)).toContain(event.threadId);
    const messages = (await client.callTool({
      name: "list_messages",
      arguments: { threadId: event.threadId },
    })) as ToolResult;
    expect(messages.structuredContent.messages).toHaveLength(1);

    const reply = (await client.callTool({
      name: "reply_in_thread",
      arguments: { threadId: event.threadId, text: "It is 4242." },
    })) as ToolResult;
    expect(reply.structuredContent).toMatchObject({ status: "sent" });
    const theirs = await call("GET", `/v1/messages?inboxId=${peer.id}&direction=inbound`, { key: peerOrg.secret });
    expect(theirs.body.messages[0]).toMatchObject({ subject: "Re: Question", direction: "inbound" });

    // Nothing else arrives: the wait ends empty at its deadline, keeping the cursor.
    const empty = (await client.callTool({
      name: "wait_for_message",
      arguments: { inboxId: mine.id, since: result.structuredContent.cursor, timeoutSeconds: 1 },
    })) as ToolResult;
    expect(empty.structuredContent).toEqual({ event: null, cursor: result.structuredContent.cursor });
    await client.close();
  }, 90_000);

  test("every tool of the registry is refused (not listed, not callable) to a key without its scope", async () => {
    const key = await newKey(org, { scopes: ["domains:read"] });
    const client = await connect(key.secret);
    const listed = new Set((await client.listTools()).tools.map((t) => t.name));
    for (const tool of mcpTools()) {
      const allowed = tool.requiredScopes.every((s) => s === "domains:read");
      expect(listed.has(tool.name), tool.name).toBe(allowed);
      if (!allowed)
        await expect(client.callTool({ name: tool.name, arguments: {} }), tool.name).rejects.toThrow(
          /not available to this API key/,
        );
    }
    await client.close();
  });

  test("the server refuses callers without a valid key, other sites' pages, and GET", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${app.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(init),
      });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("missing_api_key");
    expect((await post({ authorization: "Bearer svc_live_nope" })).status).toBe(401);
    expect(
      (
        await post({
          authorization: `Bearer ${org.secret}`,
          origin: "http://evil.example.com",
          host: "evil.example.com",
        })
      ).status,
    ).toBe(403);
    const ok = await post({ authorization: `Bearer ${org.secret}` });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe(
      "svc-messaging",
    );
    const get = await fetch(`${app.url}/mcp`, { headers: { authorization: `Bearer ${org.secret}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  test("a JSON-RPC batch is refused with a JSON-RPC error, not run (issue 22, finding 6)", async () => {
    const post = (body: unknown) =>
      fetch(`${app.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${org.secret}`,
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify(body),
      });
    const calls = Array.from({ length: 100 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name: "list_inboxes", arguments: {} },
    }));
    for (const batch of [calls, calls.slice(0, 2), [{ jsonrpc: "2.0", id: 1, method: "tools/list" }]]) {
      const res = await post(batch);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { jsonrpc: string; id: null; error: { code: number; message: string } };
      expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
      expect(body.error.message).toMatch(/batch/i);
      // Still counted once, as the request it is: the key's rate-limit headers are on the refusal.
      expect(res.headers.get("ratelimit-limit")).not.toBeNull();
    }
    // One message per request still works.
    const one = await post({ jsonrpc: "2.0", id: 7, method: "tools/list" });
    expect(one.status).toBe(200);
    expect(((await one.json()) as { id: number }).id).toBe(7);
    // Malformed JSON keeps the transport's own answer.
    const bad = await fetch(`${app.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${org.secret}`,
      },
      body: "{",
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });
});

describe("GET /v1/mcp/tools", () => {
  test("public: every tool with its scopes; with a key, which ones it may call; a bad key is 401", async () => {
    const anon = await call("GET", "/v1/mcp/tools");
    expect(anon.status).toBe(200);
    expect(anon.body).toMatchObject({ object: "list", serverPath: "/mcp", authenticated: false });
    const byName = new Map<string, any>(anon.body.tools.map((t: { name: string }) => [t.name, t]));
    expect(byName.get("send_message")).toMatchObject({ operationId: "sendMessage", requiredScopes: ["messages:send"] });
    expect(byName.get("wait_for_message")).toMatchObject({ requiredScopes: ["events:read"] });
    expect(byName.get("get_whoami")).toMatchObject({ requiredScopes: [] });
    expect(byName.get("send_message")).not.toHaveProperty("callable");
    // Exactly the registry's MCP-enabled key operations.
    const expected = OPERATIONS.filter(
      (op) =>
        op.surfaces.mcp &&
        op.contract.status === "live" &&
        !op.contract.binary &&
        op.contract.access !== "public" &&
        op.contract.access !== "session",
    );
    expect([...byName.values()].map((t) => t.operationId).sort()).toEqual(expected.map((op) => op.id).sort());

    const org = await newOrg();
    const key = await newKey(org, { scopes: ["messages:read"] });
    const keyed = await call("GET", "/v1/mcp/tools", { key: key.secret });
    expect(keyed.body.authenticated).toBe(true);
    const callable = new Map<string, boolean>(
      keyed.body.tools.map((t: { name: string; callable: boolean }) => [t.name, t.callable]),
    );
    expect(callable.get("list_messages")).toBe(true);
    expect(callable.get("send_message")).toBe(false);
    expect(callable.get("get_whoami")).toBe(true);
    expect((await call("GET", "/v1/mcp/tools", { key: "svc_live_bogus" })).status).toBe(401);
  });
});
