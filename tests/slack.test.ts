import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { getDb } from "@/db";
import {
  auditLogs,
  inboxConnections,
  ledgerEvents,
  messages,
  outbox,
  slackEvents,
  slackOauthStates,
} from "@/db/schema";
import { drainOutbox } from "@/lib/outbox/relay";
import { enqueueOutbox } from "@/lib/outbox/store";
import { recoverSlackEvents } from "@/lib/slack/events";
import { env } from "@/lib/env";
import { slack } from "@/lib/channels/slack";
import { type SlackFake, signSlack, startSlackFake } from "./fakes/slack";
import { call, newInbox, newOrg } from "./harness";
import { installSlack, newSlackApp, useSlackFake } from "./slack-install";

/**
 * Slack end to end against the loopback Web API fake: apps (secrets never shown), the install URL's
 * single-use state through the OAuth callback, signed Events API deliveries into threads, replies in
 * the same Slack thread, url_verification, refused signatures, retries stored once, ambient store.
 */

let fake: SlackFake;
let restore: () => void;
const output: string[] = [];

beforeAll(async () => {
  fake = await startSlackFake();
  restore = useSlackFake(fake);
  // The first request loads every route module.
  await newInbox(await newOrg(), "warm");
  const capture =
    (orig: (...a: unknown[]) => void) =>
    (...args: unknown[]) => {
      output.push(args.map(String).join(" "));
      orig(...args);
    };
  vi.spyOn(console, "log").mockImplementation(capture(console.log.bind(console)));
  vi.spyOn(console, "error").mockImplementation(capture(console.error.bind(console)));
}, 120_000);

afterAll(async () => {
  restore();
  vi.restoreAllMocks();
  await fake.close();
});

async function until<T>(read: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await read();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function postEvent(signingSecret: string, payload: unknown, opts: { timestamp?: number; retry?: number } = {}) {
  const raw = JSON.stringify(payload);
  return call("POST", "/v1/providers/slack/events", {
    rawBody: raw,
    headers: {
      ...signSlack(signingSecret, raw, opts.timestamp),
      ...(opts.retry ? { "x-slack-retry-num": String(opts.retry), "x-slack-retry-reason": "http_timeout" } : {}),
    },
  });
}

const eventOf = (
  app: { appId: string },
  team: { id: string },
  event: Record<string, unknown>,
  eventId = `Ev${randomUUID().replace(/-/g, "").slice(0, 10).toUpperCase()}`,
) => ({
  token: "legacy",
  team_id: team.id,
  api_app_id: app.appId,
  type: "event_callback",
  event_id: eventId,
  event_time: Math.floor(Date.now() / 1000),
  authorizations: [{ team_id: team.id, user_id: "UBOT", is_bot: true, is_enterprise_install: false }],
  event,
});

async function inboundOf(inboxId: string, count: number) {
  const db = await getDb();
  return until(async () => {
    const rows = await db
      .select()
      .from(messages)
      .where(and(eq(messages.inboxId, inboxId), eq(messages.direction, "inbound")));
    return rows.length >= count ? rows : null;
  }, `${count} inbound messages`);
}

async function setup() {
  const org = await newOrg();
  const inbox = await newInbox(org, "slack");
  const app = await newSlackApp(org, fake);
  const { team, installation } = await installSlack(org, fake, app, inbox.id);
  return { org, inbox, app, team, installation };
}

describe("Slack apps", () => {
  test("byo app: created, listed, read, deleted; secrets in no response, audit row or log line", async () => {
    const org = await newOrg();
    const app = await newSlackApp(org, fake);
    const list = await call("GET", "/v1/slack/apps", { key: org.secret });
    expect(list.status).toBe(200);
    expect(list.body.apps).toHaveLength(1);
    expect(list.body.apps[0]).toMatchObject({ appId: app.appId, clientId: app.clientId, origin: "byo" });
    expect(list.body.apps[0].createdAt).toBeTruthy();
    const one = await call("GET", `/v1/slack/apps/${app.app.id}`, { key: org.secret });
    expect(one.body.app).toMatchObject({ id: app.app.id, contextMode: "mentions", ambientMode: "off" });
    const ambient = await call("PATCH", `/v1/slack/apps/${app.app.id}/ambient`, {
      key: org.secret,
      body: { contextMode: "ambient", ambientMode: "store" },
    });
    expect(ambient.body).toEqual({ appId: app.appId, contextMode: "ambient", ambientMode: "store" });
    const inbox = await newInbox(org);
    await installSlack(org, fake, app, inbox.id);
    const db = await getDb();
    const audit = await db.select().from(auditLogs).where(eq(auditLogs.orgId, org.orgId));
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(["slack_app.created", "slack_app.ambient_set", "slack_app.installed"]),
    );
    const seen = JSON.stringify([list.body, one.body, ambient.body, audit]) + output.join("\n");
    for (const secret of [app.clientSecret, app.signingSecret]) expect(seen).not.toContain(secret);
    const [conn] = await db
      .select()
      .from(inboxConnections)
      .where(and(eq(inboxConnections.inboxId, inbox.id), eq(inboxConnections.channel, "slack")));
    expect(conn?.secretCiphertext).not.toContain("xoxb-");
    expect(seen).not.toContain("xoxb-");
    const deleted = await call("DELETE", `/v1/slack/apps/${app.app.id}`, { key: org.secret });
    expect(deleted.body.app.status).toBe("deleted");
    expect((await call("GET", `/v1/slack/apps/${app.app.id}`, { key: org.secret })).status).toBe(404);
  });

  test("managed without the operator's app in the environment: 400 saying what to set", async () => {
    const org = await newOrg();
    const res = await call("POST", "/v1/slack/apps", { key: org.secret, body: { origin: "managed" } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("SLACK_CLIENT_SECRET");
    expect(res.body.error.message).toContain("SLACK_SIGNING_SECRET");
  });

  test("another organization's app and inbox are 404", async () => {
    const { org, inbox, app } = await setup();
    const other = await newOrg();
    expect((await call("GET", `/v1/slack/apps/${app.app.id}`, { key: other.secret })).status).toBe(404);
    expect((await call("DELETE", `/v1/slack/apps/${app.app.id}`, { key: other.secret })).status).toBe(404);
    const url = await call("POST", `/v1/slack/apps/${app.app.id}/install-url`, {
      key: other.secret,
      body: { inboxId: inbox.id },
    });
    expect(url.status).toBe(404);
    const mine = await newSlackApp(other, fake);
    const cross = await call("POST", `/v1/slack/apps/${mine.app.id}/install-url`, {
      key: other.secret,
      body: { inboxId: inbox.id },
    });
    expect(cross.status).toBe(404);
    expect(cross.body.error.param).toBe("inboxId");
    expect((await call("GET", "/v1/slack/apps", { key: other.secret })).body.apps).toHaveLength(1);
    expect(org.orgId).not.toBe(other.orgId);
  });
});

describe("installing", () => {
  test("the install URL is Slack's authorize URL; the callback stores the installation; reused, forged and expired states are refused", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    const app = await newSlackApp(org, fake);
    const minted = await call("POST", `/v1/slack/apps/${app.app.id}/install-url`, {
      key: org.secret,
      body: { inboxId: inbox.id },
    });
    expect(minted.status).toBe(200);
    const url = new URL(minted.body.url);
    expect(`${url.origin}${url.pathname}`).toBe(env.SLACK_AUTHORIZE_URL);
    expect(url.searchParams.get("client_id")).toBe(app.clientId);
    expect(url.searchParams.get("redirect_uri")).toMatch(/\/v1\/providers\/slack\/oauth\/callback$/);
    const state = url.searchParams.get("state") ?? "";
    const code = fake.authorizeCode(app.clientId, { id: "TINSTALL1", name: "acme" });
    const cb = (s: string, c = fake.authorizeCode(app.clientId)) =>
      call("GET", `/v1/providers/slack/oauth/callback?code=${c}&state=${encodeURIComponent(s)}`);
    const ok = await cb(state, code);
    expect(ok.status).toBe(200);
    expect(ok.body.installation).toMatchObject({ appId: app.appId, teamId: "TINSTALL1", inboxId: inbox.id });
    const db = await getDb();
    const conns = await db.select().from(inboxConnections).where(eq(inboxConnections.inboxId, inbox.id));
    expect(conns.map((c) => c.address)).toContain(`${app.appId}:TINSTALL1`);
    // The console names the installation by the workspace's name Slack gave (kept on its audit row).
    const words = await slack.describeConnections?.(db, org.orgId, conns);
    const installed = conns.find((c) => c.address === `${app.appId}:TINSTALL1`);
    expect(words?.get(installed?.id ?? "")?.name).toBe("acme (TINSTALL1)");
    // Reused.
    const reused = await cb(state);
    expect(reused.status).toBe(400);
    expect(reused.body.error.param).toBe("state");
    // Forged: a state id that exists with another secret, and garbage.
    const [id] = state.split(".");
    expect((await cb(`${id}.forged`)).status).toBe(400);
    expect((await cb("garbage")).status).toBe(400);
    // Expired.
    const fresh = await call("POST", `/v1/slack/apps/${app.app.id}/install-url`, {
      key: org.secret,
      body: { inboxId: inbox.id },
    });
    const freshState = new URL(fresh.body.url).searchParams.get("state") ?? "";
    await db
      .update(slackOauthStates)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(slackOauthStates.id, freshState.split(".")[0] ?? ""));
    const expired = await cb(freshState);
    expect(expired.status).toBe(400);
    expect(expired.body.error.param).toBe("state");
  });

  test("Slack unreachable during the code exchange: 502 provider_unavailable", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    const app = await newSlackApp(org, fake);
    const minted = await call("POST", `/v1/slack/apps/${app.app.id}/install-url`, {
      key: org.secret,
      body: { inboxId: inbox.id },
    });
    const state = new URL(minted.body.url).searchParams.get("state") ?? "";
    Object.assign(env, { SLACK_API_URL: "http://127.0.0.1:9/api/" });
    try {
      const res = await call("GET", `/v1/providers/slack/oauth/callback?code=x&state=${encodeURIComponent(state)}`);
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe("provider_unavailable");
    } finally {
      Object.assign(env, { SLACK_API_URL: fake.apiUrl });
    }
  });
});

describe("events and replies", () => {
  test("url_verification is answered when an app's signing secret verifies it; bad signatures and stale timestamps are 401", async () => {
    const { app } = await setup();
    const challenge = { token: "t", challenge: `ch-${randomUUID()}`, type: "url_verification" };
    const res = await postEvent(app.signingSecret, challenge);
    expect(res.status).toBe(200);
    expect(res.body.challenge).toBe(challenge.challenge);
    const bad = await postEvent("not-the-secret", challenge);
    expect(bad.status).toBe(401);
    const stale = await postEvent(app.signingSecret, challenge, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect(stale.status).toBe(401);
    const unsigned = await call("POST", "/v1/providers/slack/events", { body: challenge });
    expect(unsigned.status).toBe(401);
  });

  test("a signed app_mention lands in a thread with message.received; the reply goes out in the same Slack thread", async () => {
    const { org, inbox, app, team } = await setup();
    const ts = "1700000000.000100";
    const mention = eventOf(app, team, {
      type: "app_mention",
      user: "UHUMAN01",
      text: "<@UBOT> hello there",
      ts,
      channel: "C0GENERAL1",
      event_ts: ts,
    });
    const bad = await postEvent("wrong", mention);
    expect(bad.status).toBe(401);
    const res = await postEvent(app.signingSecret, mention);
    expect(res.status).toBe(200);
    const [received] = await inboundOf(inbox.id, 1);
    expect(received).toMatchObject({ channel: "slack", fromAddress: "UHUMAN01", textBody: "<@UBOT> hello there" });
    const db = await getDb();
    const events = await db
      .select({ type: ledgerEvents.type })
      .from(ledgerEvents)
      .where(eq(ledgerEvents.partitionKey, `inbox:${inbox.id}`));
    expect(events.map((e) => e.type)).toContain("message.received");
    const reply = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "slack", to: "C0GENERAL1", replyToMessageId: received?.id, text: "on it" },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe("sent");
    const sent = (await call("GET", `/v1/messages/${reply.body.id}`, { key: org.secret })).body.message;
    expect(sent.threadId).toBe(received?.threadId);
    const posted = fake.calls.filter((c) => c.method === "chat.postMessage").at(-1);
    expect(posted?.params).toMatchObject({ channel: "C0GENERAL1", text: "on it", thread_ts: ts });
    expect(posted?.token).toMatch(/^xoxb-fake-/);
    expect(reply.body.channelMetadata).toMatchObject({ teamId: team.id, channelId: "C0GENERAL1", threadTs: ts });
    // A reply in Slack's thread joins the same thread here.
    const followUp = eventOf(app, team, {
      type: "app_mention",
      user: "UHUMAN01",
      text: "<@UBOT> thanks",
      ts: "1700000001.000200",
      thread_ts: ts,
      channel: "C0GENERAL1",
    });
    expect((await postEvent(app.signingSecret, followUp)).status).toBe(200);
    const both = await inboundOf(inbox.id, 2);
    expect(new Set(both.map((m) => m.threadId)).size).toBe(1);
    // A DM (message.im) lands too, in its own thread.
    const dm = eventOf(app, team, {
      type: "message",
      channel_type: "im",
      user: "UHUMAN02",
      text: "private",
      ts: "1700000002.000300",
      channel: "D0DIRECT01",
    });
    expect((await postEvent(app.signingSecret, dm)).status).toBe(200);
    const three = await inboundOf(inbox.id, 3);
    expect(three.find((m) => m.textBody === "private")?.threadId).not.toBe(received?.threadId);
    // Slack options: blocks go out as given.
    const blocks = [{ type: "section", text: { type: "mrkdwn", text: "*hi*" } }];
    const withBlocks = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "slack", to: "D0DIRECT01", text: "hi", blocks },
    });
    expect(withBlocks.status).toBe(200);
    expect(fake.calls.filter((c) => c.method === "chat.postMessage").at(-1)?.params.blocks).toEqual(blocks);
    expect(withBlocks.body.channelMetadata.ts).toBeTruthy();
  });

  test("a retried event is acknowledged and stored once", async () => {
    const { inbox, app, team } = await setup();
    const event = eventOf(app, team, {
      type: "app_mention",
      user: "UHUMAN01",
      text: "<@UBOT> once",
      ts: "1700000100.000100",
      channel: "C0GENERAL1",
    });
    expect((await postEvent(app.signingSecret, event)).status).toBe(200);
    expect((await postEvent(app.signingSecret, event, { retry: 1 })).status).toBe(200);
    expect((await postEvent(app.signingSecret, event, { retry: 2 })).status).toBe(200);
    await inboundOf(inbox.id, 1);
    await new Promise((r) => setTimeout(r, 200));
    const db = await getDb();
    const rows = await db
      .select()
      .from(messages)
      .where(and(eq(messages.inboxId, inbox.id), eq(messages.direction, "inbound")));
    expect(rows).toHaveLength(1);
    const stored = await db.select().from(slackEvents).where(eq(slackEvents.eventId, event.event_id));
    expect(stored).toHaveLength(1);
  });

  test("an event is stored with its outbox entry in one transaction; a process that dies before landing it loses nothing", async () => {
    const { org, inbox, app, team } = await setup();
    const mention = (text: string, ts: string) =>
      eventOf(app, team, { type: "app_mention", user: "UHUMAN01", text, ts, channel: "C0GENERAL1" });
    const first = mention("<@UBOT> durable", "1700000300.000100");
    expect((await postEvent(app.signingSecret, first)).status).toBe(200);
    await inboundOf(inbox.id, 1);
    const db = await getDb();
    const [row] = await db.select().from(slackEvents).where(eq(slackEvents.eventId, first.event_id));
    expect(row?.processedAt).toBeInstanceOf(Date);
    const [entry] = await db
      .select()
      .from(outbox)
      .where(eq(outbox.subjectId, row?.id ?? ""));
    expect(entry).toMatchObject({ kind: "slack.event", orgId: org.orgId, status: "done" });
    // As a process that died after the commit leaves it: the stored row and its entry, nothing landed.
    const lost = mention("<@UBOT> after a crash", "1700000301.000100");
    const [stored] = await db
      .insert(slackEvents)
      .values({ eventId: lost.event_id, payload: lost })
      .returning({ id: slackEvents.id });
    await enqueueOutbox(db, { orgId: org.orgId, kind: "slack.event", subjectId: stored?.id ?? null, payload: {} });
    await drainOutbox(db);
    const two = await inboundOf(inbox.id, 2);
    expect(two.map((m) => m.textBody).sort()).toEqual(["<@UBOT> after a crash", "<@UBOT> durable"]);
    // Performing the entry again (a relay taking it over late) lands nothing twice.
    await enqueueOutbox(db, { orgId: org.orgId, kind: "slack.event", subjectId: stored?.id ?? null, payload: {} });
    await drainOutbox(db);
    // A row stored unprocessed without an entry (before the outbox carried events): recovery enqueues it.
    const orphan = mention("<@UBOT> orphan", "1700000302.000100");
    await db
      .insert(slackEvents)
      .values({ eventId: orphan.event_id, payload: orphan, createdAt: new Date(Date.now() - 120_000) });
    expect(await recoverSlackEvents(db)).toBeGreaterThanOrEqual(1);
    await drainOutbox(db);
    const three = await inboundOf(inbox.id, 3);
    expect(three).toHaveLength(3);
    expect(await recoverSlackEvents(db)).toBe(0);
    const [orphanRow] = await db.select().from(slackEvents).where(eq(slackEvents.eventId, orphan.event_id));
    expect(orphanRow?.processedAt).toBeInstanceOf(Date);
  });

  test("a send from an inbox without a Slack installation, or into a thread of a team the inbox is not installed in, is 400 naming the field", async () => {
    const org = await newOrg();
    const bare = await newInbox(org, "no-slack");
    const none = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: bare.id, channel: "slack", to: "C0GENERAL1", text: "hello" },
    });
    expect(none.status, JSON.stringify(none.body)).toBe(400);
    expect(none.body.error).toMatchObject({ code: "invalid_request", param: "channel" });
    expect(none.body.error.message).toMatch(/Slack installation/);
    const db = await getDb();
    expect(await db.select().from(messages).where(eq(messages.inboxId, bare.id))).toHaveLength(0);
    // A thread of a workspace whose installation is gone: not posted through another workspace's.
    const { inbox, app, team, org: owner } = await setup();
    const mention = eventOf(app, team, {
      type: "app_mention",
      user: "UHUMAN01",
      text: "<@UBOT> hi",
      ts: "1700000400.000100",
      channel: "C0GENERAL1",
    });
    expect((await postEvent(app.signingSecret, mention)).status).toBe(200);
    const [received] = await inboundOf(inbox.id, 1);
    await installSlack(owner, fake, app, inbox.id);
    await db
      .update(inboxConnections)
      .set({ status: "disconnected" })
      .where(and(eq(inboxConnections.channel, "slack"), eq(inboxConnections.address, `${app.appId}:${team.id}`)));
    const posts = fake.calls.filter((c) => c.method === "chat.postMessage").length;
    const reply = await call("POST", "/v1/messages", {
      key: owner.secret,
      body: { inboxId: inbox.id, channel: "slack", to: "C0GENERAL1", replyToMessageId: received?.id, text: "late" },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(400);
    expect(reply.body.error).toMatchObject({ code: "invalid_request", param: "replyToMessageId" });
    expect(reply.body.error.message).toContain(team.id);
    expect(fake.calls.filter((c) => c.method === "chat.postMessage")).toHaveLength(posts);
  });

  test("ambient store keeps channel messages without message.received; mentions-only mode ignores them", async () => {
    const { org, inbox, app, team } = await setup();
    const chatter = (ts: string) =>
      eventOf(app, team, {
        type: "message",
        channel_type: "channel",
        user: "UHUMAN03",
        text: `chat ${ts}`,
        ts,
        channel: "C0RANDOM01",
      });
    expect((await postEvent(app.signingSecret, chatter("1700000200.000100"))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const db = await getDb();
    const none = await db.select().from(messages).where(eq(messages.inboxId, inbox.id));
    expect(none).toHaveLength(0);
    await call("PATCH", `/v1/slack/apps/${app.app.id}/ambient`, {
      key: org.secret,
      body: { contextMode: "ambient", ambientMode: "store" },
    });
    expect((await postEvent(app.signingSecret, chatter("1700000201.000100"))).status).toBe(200);
    const [stored] = await inboundOf(inbox.id, 1);
    expect(stored?.textBody).toBe("chat 1700000201.000100");
    expect(stored?.channelMetadata).toMatchObject({ ambient: true, channelId: "C0RANDOM01" });
    const events = await db
      .select({ type: ledgerEvents.type })
      .from(ledgerEvents)
      .where(eq(ledgerEvents.partitionKey, `inbox:${inbox.id}`));
    expect(events.map((e) => e.type)).not.toContain("message.received");
  });
});
