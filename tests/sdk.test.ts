import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { env } from "@/lib/env";
import { generateSchema, SCHEMA_FILE } from "@/sdk/generate";
import { createSvcClient, SvcApiError, unwrap } from "@/sdk";
import { startAppServer, type AppServer } from "./app-server";
import { newOrg } from "./harness";

/**
 * The typed SDK (`sdk/`): the committed generated types equal a fresh generation from the
 * registry, and the main flows run through the SDK over real HTTP against the app.
 */
test("sdk/schema.ts is current (regenerating gives no diff; run `npm run sdk:generate`)", async () => {
  expect(await generateSchema()).toBe(fs.readFileSync(SCHEMA_FILE, "utf8"));
});

describe("the SDK against the running app", () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startAppServer();
  });
  afterAll(async () => {
    await app?.close();
  });

  test("keys, inboxes, a send, messages, threads, events; errors as SvcApiError", async () => {
    const org = await newOrg();
    const svc = createSvcClient({ baseUrl: app.url, apiKey: org.secret });

    const who = await unwrap(svc.GET("/v1/whoami"));
    expect(who.organization.id).toBe(org.orgId);

    const a = await unwrap(svc.POST("/v1/inboxes", { body: { address: `sdk-a-${Date.now()}@${env.SHARED_DOMAIN}` } }));
    const b = await unwrap(svc.POST("/v1/inboxes", { body: { address: `sdk-b-${Date.now()}@${env.SHARED_DOMAIN}` } }));
    const { inboxes } = await unwrap(svc.GET("/v1/inboxes"));
    expect(inboxes.map((i) => i.id)).toEqual(expect.arrayContaining([a.inbox.id, b.inbox.id]));

    // A narrow key, made through the SDK, sends through its own client.
    const made = await unwrap(
      svc.POST("/v1/api-keys", {
        body: { name: "sdk sender", scopes: ["messages:send", "messages:read", "events:read"] },
      }),
    );
    const sender = createSvcClient({ baseUrl: app.url, apiKey: made.secret });
    const sent = await unwrap(
      sender.POST("/v1/messages", {
        body: { inboxId: a.inbox.id, to: [b.inbox.address], subject: "Via SDK", text: "typed all the way" },
        headers: { "Idempotency-Key": "sdk-send-1" },
      }),
    );
    if (!("id" in sent)) throw new Error("expected a send, not a preview");
    expect(sent).toMatchObject({ status: "sent", channel: "a2a" });

    const again = await sender.POST("/v1/messages", {
      body: { inboxId: a.inbox.id, to: [b.inbox.address], subject: "Via SDK", text: "typed all the way" },
      headers: { "Idempotency-Key": "sdk-send-1" },
    });
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");

    const inbound = await unwrap(
      sender.GET("/v1/messages", { params: { query: { inboxId: b.inbox.id, direction: "inbound" } } }),
    );
    expect(inbound.messages).toHaveLength(1);
    const message = await unwrap(
      sender.GET("/v1/messages/{messageId}", { params: { path: { messageId: inbound.messages[0]?.id ?? "" } } }),
    );
    expect(message.message).toMatchObject({ subject: "Via SDK", direction: "inbound" });
    const threads = await unwrap(sender.GET("/v1/threads", { params: { query: { inboxId: b.inbox.id } } }));
    const thread = await unwrap(
      sender.GET("/v1/threads/{threadId}", { params: { path: { threadId: threads.threads[0]?.id ?? "" } } }),
    );
    expect(thread.thread.messages).toHaveLength(1);

    const events = await unwrap(
      sender.GET("/v1/events", { params: { query: { inboxId: b.inbox.id, type: "message.received", wait: 5 } } }),
    );
    expect(events.data[0]).toMatchObject({ type: "message.received", messageId: inbound.messages[0]?.id });

    // Errors: the envelope's code and param, on a typed exception.
    await expect(unwrap(sender.GET("/v1/api-keys"))).rejects.toMatchObject({
      name: "SvcApiError",
      status: 403,
      code: "scope_missing",
    });
    const bad = await unwrap(
      sender.POST("/v1/messages", { body: { inboxId: a.inbox.id, to: ["nope"], text: "x" } }),
    ).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(SvcApiError);
    expect(bad).toMatchObject({ status: 400, code: "invalid_request", param: "to[0]" });

    const revoked = await unwrap(
      svc.POST("/v1/api-keys/{keyId}/revoke", { params: { path: { keyId: made.apiKey.id } } }),
    );
    expect(revoked.apiKey.status).toBe("revoked");
    await expect(unwrap(sender.GET("/v1/whoami"))).rejects.toMatchObject({ status: 401 });
  }, 120_000); // two dozen HTTP round trips; on a loaded machine more than the default 30 s
});
