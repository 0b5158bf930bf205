import { createServer, type Server } from "node:http";
import { Webhook } from "standardwebhooks";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { webhooks } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { appendEvent } from "@/lib/events/ledger";
import { startWebhookDispatcher, stopWebhookDispatcher } from "@/lib/webhooks/dispatcher";
import { call, newOrg, type TestOrg } from "../harness";
import { type Harness, sleep, startHarness } from "./harness";

/** Webhook delivery end to end: ledger append → the dispatcher (replays: a workflow) → a loopback receiver. */
/** A delivery-log row as the API returns it (the fields these tests read). */
interface LoggedAttempt {
  status: string;
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body: string;
    bodyTruncated: boolean;
  } | null;
  responseHeaders: Record<string, string> | null;
}

interface Received {
  headers: Record<string, string>;
  body: string;
}

class Receiver {
  server: Server;
  received: Received[] = [];
  /** Decides the status of each request (by its index). */
  respond: (n: number) => number = () => 200;
  url = "";
  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const n = this.received.length;
        this.received.push({
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
          body: Buffer.concat(chunks).toString(),
        });
        res.writeHead(this.respond(n), { "Content-Type": "text/plain" });
        res.end(this.respond(n) < 300 ? "ok" : "nope");
      });
    });
  }
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const a = this.server.address();
    this.url = `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}/hook`;
    return this;
  }
  /** Successful receipts, deduplicated by webhook-id (what an idempotent receiver keeps). */
  uniqueDelivered(): string[] {
    const ok = this.received.filter((_, i) => this.respond(i) < 300);
    return [...new Set(ok.map((r) => r.headers["webhook-id"] ?? ""))];
  }
  close() {
    this.server.closeAllConnections();
    this.server.close();
  }
}

let h: Harness;
const receivers: Receiver[] = [];
beforeAll(async () => {
  h = await startHarness();
  await h.serveApp(inngest, functions);
  h.executor.start();
  await startWebhookDispatcher();
});
afterAll(async () => {
  await stopWebhookDispatcher();
  for (const r of receivers) r.close();
  await h.close();
});

async function receiver(): Promise<Receiver> {
  const r = await new Receiver().start();
  receivers.push(r);
  return r;
}

async function emit(
  org: TestOrg,
  n: number,
  type: "message.sent" | "message.received" = "message.sent",
  partition = "inbox:w",
) {
  const db = await getDb();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const e = await db.transaction((tx) =>
      appendEvent(tx, { orgId: org.orgId, type, partitionKey: partition, data: { i } }),
    );
    ids.push(e.eventId);
  }
  return ids;
}

async function until<T>(fn: () => Promise<T> | T, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met; last value: ${JSON.stringify(v)?.slice(0, 500)}`);
    await sleep(30);
  }
}

describe("endpoints", () => {
  test("create returns the secret once; URLs and event types are validated", async () => {
    const org = await newOrg();
    const created = await call("POST", "/v1/webhooks", {
      key: org.secret,
      body: { url: "http://127.0.0.1:9/x", events: ["message.received", "domain.verified"], label: "dev" },
    });
    expect(created.status).toBe(200);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(created.body.webhook).toMatchObject({
      object: "webhook",
      status: "active",
      label: "dev",
      autoPaused: false,
      consecutiveFailures: 0,
      secondarySecretActive: false,
    });
    const got = await call("GET", `/v1/webhooks/${created.body.webhook.id}`, { key: org.secret });
    expect(JSON.stringify(got.body)).not.toContain(created.body.secret);
    for (const [url, why] of [
      ["ftp://example.com/x", "https"],
      ["https://10.0.0.5/hook", "private"],
      ["https://169.254.169.254/latest/meta-data", "private"],
      ["https://[fd00::1]/hook", "private"],
      ["not a url", "URL"],
    ]) {
      const res = await call("POST", "/v1/webhooks", { key: org.secret, body: { url, events: ["message.received"] } });
      expect(res.status, url).toBe(400);
      expect(res.body.error.param).toBe("url");
      expect(res.body.error.message).toContain(why);
    }
    const badType = await call("POST", "/v1/webhooks", {
      key: org.secret,
      body: { url: "http://127.0.0.1:9/x", events: ["message.exploded"] },
    });
    expect(badType.body.error.param).toBe("events[0]");
  });
});

describe("delivery", () => {
  test("events arrive signed per Standard Webhooks, verified by the standardwebhooks library", async () => {
    const org = await newOrg();
    const r = await receiver();
    const { webhook, secret } = (
      await call("POST", "/v1/webhooks", { key: org.secret, body: { url: r.url, events: ["message.sent"] } })
    ).body;
    const [eventId] = await emit(org, 1);
    await emit(org, 1, "message.received"); // not subscribed
    await until(
      () => r.received.length,
      (n) => n >= 1,
    );
    await sleep(300);
    expect(r.received).toHaveLength(1);
    const got = r.received[0] as Received;
    const payload = new Webhook(secret).verify(got.body, got.headers) as {
      eventId: string;
      type: string;
      data: unknown;
      createdAt: string;
    };
    expect(payload).toMatchObject({ eventId, type: "message.sent", data: { i: 0 } });
    expect(got.headers["webhook-id"]).toBe(eventId);
    expect(got.headers["x-svc-signature"]).toBe(got.headers["webhook-signature"]);
    expect(() =>
      new Webhook(`whsec_${Buffer.from("another secret!!").toString("base64")}`).verify(got.body, got.headers),
    ).toThrow();
    const log = await until(
      async () => (await call("GET", `/v1/webhooks/${webhook.id}/deliveries`, { key: org.secret })).body.data,
      (d: LoggedAttempt[]) => d.length === 1,
    );
    expect(log[0]).toMatchObject({
      eventId,
      eventType: "message.sent",
      attempt: 1,
      status: "succeeded",
      responseStatus: 200,
      responseSnippet: "ok",
      error: null,
    });
    const first = log[0] as LoggedAttempt;
    // The attempt's details: the request exactly as the receiver got it (signature included), the response's headers.
    expect(first.request).toMatchObject({ method: "POST", url: r.url, body: got.body, bodyTruncated: false });
    for (const name of [
      "webhook-id",
      "webhook-timestamp",
      "webhook-signature",
      "x-svc-signature",
      "content-type",
      "user-agent",
    ]) {
      const sent = Object.entries(first.request?.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
      expect(sent, name).toBe(got.headers[name]);
    }
    expect(first.responseHeaders?.["content-type"]).toBe("text/plain");
    // The secret is never stored or returned: not in clear, not as its key bytes.
    const raw = JSON.stringify(log);
    expect(raw).not.toContain(secret);
    expect(raw).not.toContain(secret.slice("whsec_".length));
  });

  test("attempt details are bounded: a large body is cut in the log (the receiver gets all of it); a refused URL logs no request", async () => {
    const org = await newOrg();
    const r = await receiver();
    const { webhook } = (
      await call("POST", "/v1/webhooks", { key: org.secret, body: { url: r.url, events: ["message.sent"] } })
    ).body;
    const db = await getDb();
    const big = "x".repeat(20_000);
    await db.transaction((tx) =>
      appendEvent(tx, { orgId: org.orgId, type: "message.sent", partitionKey: "inbox:big", data: { big } }),
    );
    await until(
      () => r.received.length,
      (n) => n >= 1,
    );
    expect(r.received[0]?.body).toContain(big);
    const [d] = await until(
      async () => (await call("GET", `/v1/webhooks/${webhook.id}/deliveries`, { key: org.secret })).body.data,
      (rows: LoggedAttempt[]) => rows.length === 1 && rows[0]?.status === "succeeded",
    );
    expect(d?.request?.bodyTruncated).toBe(true);
    expect(d?.request?.body).toHaveLength(8192);
    expect(r.received[0]?.body.startsWith(d?.request?.body ?? "-")).toBe(true);

    // The test ping records its request too; a URL refused before sending records none.
    const ping = await call("POST", `/v1/webhooks/${webhook.id}/test`, { key: org.secret });
    expect(ping.body.delivery).toMatchObject({ status: "succeeded", responseStatus: 200, error: null });
    expect(JSON.parse(ping.body.delivery.request.body)).toMatchObject({
      type: "webhook.test",
      data: { webhookId: webhook.id, test: true },
    });
    const refused = (
      await call("POST", "/v1/webhooks", { key: org.secret, body: { url: r.url, events: ["message.sent"] } })
    ).body.webhook;
    await db.update(webhooks).set({ url: "https://10.0.0.9/hook" }).where(eq(webhooks.id, refused.id));
    const refusedPing = await call("POST", `/v1/webhooks/${refused.id}/test`, { key: org.secret });
    expect(refusedPing.body.delivery).toMatchObject({ status: "failed", request: null, responseHeaders: null });
    expect(refusedPing.body.delivery.error).toMatch(/^URL refused: host 10\.0\.0\.9 resolves to a private/);
  });

  test("a receiver that fails half of its requests still receives every event", async () => {
    const org = await newOrg();
    const r = await receiver();
    r.respond = (n) => (n % 2 === 0 ? 500 : 200);
    await call("POST", "/v1/webhooks", { key: org.secret, body: { url: r.url, events: ["message.sent"] } });
    const ids = await emit(org, 12);
    const delivered = await until(
      () => r.uniqueDelivered(),
      (d) => d.length === 12,
      30_000,
    );
    expect(new Set(delivered)).toEqual(new Set(ids));
  });

  test("the breaker trips after consecutive failures; resume and redrive recover every event", async () => {
    const org = await newOrg();
    const r = await receiver();
    r.respond = () => 500;
    const { webhook } = (
      await call("POST", "/v1/webhooks", { key: org.secret, body: { url: r.url, events: ["message.sent"] } })
    ).body;
    const ids = await emit(org, 3);
    const paused = await until(
      async () => (await call("GET", `/v1/webhooks/${webhook.id}`, { key: org.secret })).body.webhook,
      (w: { status: string }) => w.status === "paused",
      30_000,
    );
    expect(paused).toMatchObject({
      autoPaused: true,
      pausedReason: "auto:delivery_failures",
      autoPausedAt: expect.any(String),
    });
    const more = await emit(org, 2); // not delivered while paused
    await sleep(500);
    expect((await call("POST", `/v1/webhooks/${webhook.id}/redrive`, { key: org.secret })).status).toBe(409);
    r.respond = () => 200;
    const resumed = await call("POST", `/v1/webhooks/${webhook.id}/resume`, { key: org.secret });
    expect(resumed.body.webhook).toMatchObject({
      status: "active",
      autoPaused: false,
      pausedReason: null,
      consecutiveFailures: 0,
    });
    const redrive = await call("POST", `/v1/webhooks/${webhook.id}/redrive`, { key: org.secret });
    expect(redrive.body.redriven).toBe(5);
    const delivered = await until(
      () => r.uniqueDelivered(),
      (d) => [...ids, ...more].every((id) => d.includes(id)),
      30_000,
    );
    expect(delivered).toEqual(expect.arrayContaining([...ids, ...more]));
  }, 90_000);

  test("rateLimitPerSecond paces an endpoint (a burst of its rate, then one per 1/rate s) and delays, never drops", async () => {
    const org = await newOrg();
    const r = await receiver();
    const created = await call("POST", "/v1/webhooks", {
      key: org.secret,
      body: { url: r.url, events: ["message.sent"], rateLimitPerSecond: 4 },
    });
    expect(created.body.webhook.rateLimitPerSecond).toBe(4);
    const { webhook } = created.body;
    const ids = await emit(org, 10);
    const delivered = await until(
      () => r.uniqueDelivered(),
      (d) => d.length === 10,
      30_000,
    );
    expect(new Set(delivered)).toEqual(new Set(ids));
    // Attempts start when claimed (the log row's time, the database's clock): 4 at once, then one per 250 ms.
    const log = (await call("GET", `/v1/webhooks/${webhook.id}/deliveries?limit=100`, { key: org.secret })).body
      .data as { createdAt: string }[];
    const starts = log.map((d) => Date.parse(d.createdAt)).sort((a, b) => a - b);
    expect(starts).toHaveLength(10);
    const first = starts[0] ?? 0;
    starts.forEach((t, i) => expect(t - first).toBeGreaterThanOrEqual(Math.max(0, i - 3) * 250 - 5));
    const off = await call("PATCH", `/v1/webhooks/${webhook.id}`, {
      key: org.secret,
      body: { rateLimitPerSecond: null },
    });
    expect(off.body.webhook.rateLimitPerSecond).toBeNull();
    expect(
      (await call("PATCH", `/v1/webhooks/${webhook.id}`, { key: org.secret, body: { rateLimitPerSecond: 0 } })).status,
    ).toBe(400);
  });

  test("after a rotation both secrets verify during the window; 410 disables the endpoint", async () => {
    const org = await newOrg();
    const r = await receiver();
    const created = (
      await call("POST", "/v1/webhooks", { key: org.secret, body: { url: r.url, events: ["message.sent"] } })
    ).body;
    const rotated = await call("POST", `/v1/webhooks/${created.webhook.id}/rotate-secret`, { key: org.secret });
    expect(rotated.body.secret).not.toBe(created.secret);
    expect(rotated.body.webhook).toMatchObject({
      secondarySecretActive: true,
      secondarySecretExpiresAt: expect.any(String),
    });
    await emit(org, 1);
    await until(
      () => r.received.length,
      (n) => n >= 1,
    );
    const got = r.received[0] as Received;
    expect(got.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(new Webhook(created.secret).verify(got.body, got.headers)).toBeTruthy();
    expect(new Webhook(rotated.body.secret).verify(got.body, got.headers)).toBeTruthy();

    r.respond = () => 410;
    await emit(org, 1);
    const gone = await until(
      async () => (await call("GET", `/v1/webhooks/${created.webhook.id}`, { key: org.secret })).body.webhook,
      (w: { status: string; pausedReason: string | null }) => w.status === "paused",
    );
    expect(gone.pausedReason).toBe("gone");
  });

  test("test sends a signed ping and logs it; pause, update and delete work", async () => {
    const org = await newOrg();
    const r = await receiver();
    const { webhook, secret } = (
      await call("POST", "/v1/webhooks", { key: org.secret, body: { url: r.url, events: ["message.sent"] } })
    ).body;
    const ping = await call("POST", `/v1/webhooks/${webhook.id}/test`, { key: org.secret });
    expect(ping.body.delivery).toMatchObject({ eventType: "webhook.test", status: "succeeded", responseStatus: 200 });
    expect(new Webhook(secret).verify(r.received[0]?.body ?? "", r.received[0]?.headers ?? {})).toMatchObject({
      type: "webhook.test",
    });
    expect((await call("POST", `/v1/webhooks/${webhook.id}/pause`, { key: org.secret })).body.webhook.status).toBe(
      "paused",
    );
    const upd = await call("PATCH", `/v1/webhooks/${webhook.id}`, {
      key: org.secret,
      body: { events: ["message.received"], label: "x" },
    });
    expect(upd.body.webhook).toMatchObject({ events: ["message.received"], label: "x" });
    expect((await call("DELETE", `/v1/webhooks/${webhook.id}`, { key: org.secret })).body).toEqual({
      deleted: true,
      id: webhook.id,
    });
    expect((await call("GET", "/v1/webhooks", { key: org.secret })).body.webhooks).toEqual([]);
  });
});

describe("replay", () => {
  test("re-sends a slice in (partitionKey, seq) order with original ids; counts skipped; validates bounds", async () => {
    const org = await newOrg();
    const r = await receiver();
    const t0 = new Date(Date.now() - 1000).toISOString();
    // Events first, then the webhook: nothing is delivered until the replay.
    const b = await emit(org, 2, "message.sent", "inbox:b");
    const a = await emit(org, 2, "message.sent", "inbox:a");
    await emit(org, 1, "message.received", "inbox:a"); // no subscriber: skipped
    const { webhook, secret } = (
      await call("POST", "/v1/webhooks", { key: org.secret, body: { url: r.url, events: ["message.sent"] } })
    ).body;
    const res = await call("POST", "/v1/events/replay", { key: org.secret, body: { sinceTimestamp: t0 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      replayed: 4,
      skipped: 1,
      from: { partitionKey: "inbox:a", seq: 1 },
      to: { partitionKey: "inbox:b", seq: 2 },
    });
    await until(
      () => r.received.length,
      (n) => n >= 4,
    );
    const order = r.received.map((x) => (new Webhook(secret).verify(x.body, x.headers) as { eventId: string }).eventId);
    expect(order).toEqual([...a, ...b]);
    const log = (await call("GET", `/v1/webhooks/${webhook.id}/deliveries`, { key: org.secret })).body.data;
    expect(log.every((d: { replay: boolean }) => d.replay)).toBe(true);

    const bad: [Record<string, unknown>, number, string | null][] = [
      [{}, 400, "since"],
      [{ sinceTimestamp: t0, since: "x" }, 400, "since"],
      [{ sinceSeq: 1 }, 400, "inboxId"],
      [{ sinceTimestamp: t0, maxEvents: 2 }, 400, "maxEvents"],
      [{ sinceTimestamp: t0, maxEvents: 5001 }, 400, "maxEvents"],
      [{ sinceTimestamp: t0, webhookId: "01930000-0000-7000-8000-000000000000" }, 404, "webhookId"],
    ];
    for (const [body, status, param] of bad) {
      const out = await call("POST", "/v1/events/replay", { key: org.secret, body });
      expect(out.status, JSON.stringify(body)).toBe(status);
      expect(out.body.error.param, JSON.stringify(body)).toBe(param);
    }
    await call("POST", `/v1/webhooks/${webhook.id}/pause`, { key: org.secret });
    expect(
      (
        await call("POST", "/v1/events/replay", {
          key: org.secret,
          body: { sinceTimestamp: t0, webhookId: webhook.id },
        })
      ).status,
    ).toBe(404);
  });
});
