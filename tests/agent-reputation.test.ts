import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { auditLogs } from "@/db/schema";
import { env } from "@/lib/env";
import { call, newInbox, newOrg, type TestOrg } from "./harness";
import { newAgent } from "./resources";

/**
 * Agent reputation from real delivery outcomes: the embedded transport answers the SES mailbox
 * simulator's addresses (bounce@, complaint@, success@ simulator.amazonses.com) as SES would.
 */
let org: TestOrg;
const saved = { ...env };
beforeAll(async () => {
  org = await newOrg();
  Object.assign(env, {
    REPUTATION_MIN_SENDS: 20,
    REPUTATION_THROTTLE_BOUNCE_RATE: 0.05,
    REPUTATION_QUARANTINE_BOUNCE_RATE: 0.1,
    REPUTATION_THROTTLE_COMPLAINT_RATE: 0.001,
    REPUTATION_QUARANTINE_COMPLAINT_RATE: 0.005,
    REPUTATION_THROTTLED_SENDS_PER_HOUR: 100,
  });
});
afterAll(() => {
  Object.assign(env, saved);
});
const req = (method: string, p: string, body?: unknown) => call(method, p, { key: org.secret, body });
let n = 0;
const sim = (kind: "success" | "bounce" | "complaint", count: number) =>
  Array.from({ length: count }, () => `${kind}+r${++n}@simulator.amazonses.com`);

async function boundAgent() {
  const agent = await newAgent(org);
  const inbox = await newInbox(org, "rep");
  await req("POST", `/v1/agents/${agent.agentId}/bind`, { inboxId: inbox.id });
  const send = (to: string[]) =>
    req("POST", "/v1/messages", { inboxId: inbox.id, to, subject: "Update", text: "News" });
  return {
    agent,
    inbox,
    send,
    reputation: async () => (await req("GET", `/v1/agents/${agent.agentId}/reputation`)).body,
  };
}

async function auditOf(agentUuid: string) {
  const rows = await (await getDb())
    .select({ action: auditLogs.action, actor: auditLogs.actor, metadata: auditLogs.metadata })
    .from(auditLogs)
    .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.resourceId, agentUuid)));
  return rows.filter((r) => r.action.startsWith("agent.reputation"));
}

describe("agent reputation", () => {
  test("bounces: healthy → throttled → quarantined (sends refused, shouldSend false); a clear puts it in review and it sends again", async () => {
    const { agent, send, reputation } = await boundAgent();
    const fresh = await reputation();
    expect(fresh).toMatchObject({
      agentId: agent.agentId,
      state: "healthy",
      verdict: "allow",
      shouldSend: true,
      overrideLocked: false,
      window: { hours: 24, sends: 0 },
    });
    expect(fresh.thresholds).toEqual({
      throttleBounceRate: 0.05,
      quarantineBounceRate: 0.1,
      throttleComplaintRate: 0.001,
      quarantineComplaintRate: 0.005,
      minSends: 20,
      throttledSendsPerHour: 100,
    });

    expect((await send([...sim("success", 19), ...sim("bounce", 1)])).status).toBe(200);
    const throttled = await reputation();
    expect(throttled).toMatchObject({
      state: "throttled",
      verdict: "throttle",
      shouldSend: true,
      window: { sends: 20, bounces: 1, complaints: 0 },
      rates: { bounceRate: 0.05, complaintRate: 0 },
    });
    expect(throttled.lastTrippedAt).not.toBeNull();
    expect(throttled.lastReason).toContain("bounce rate");

    // Throttled sends still go (under the hourly cap); these bounce too.
    expect((await send(sim("bounce", 2))).status).toBe(200);
    const refused = await send(sim("success", 1));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "not_permitted", param: "inboxId" });
    expect(refused.body.error.message).toContain("quarantined");
    const quarantined = await reputation();
    expect(quarantined).toMatchObject({
      state: "quarantined",
      verdict: "block",
      shouldSend: false,
      window: { sends: 22, bounces: 3 },
    });

    const fleet = await req("GET", "/v1/agents/reputation");
    expect(fleet.status).toBe(200);
    expect(fleet.body.window).toEqual({ hours: 24 });
    expect(fleet.body.thresholds.quarantineBounceRate).toBe(0.1);
    expect(fleet.body.agents.find((a: { agentId: string }) => a.agentId === agent.agentId)).toMatchObject({
      state: "quarantined",
      shouldSend: false,
    });

    const cleared = await req("POST", `/v1/agents/${agent.agentId}/reputation/clear`, { reason: "List cleaned" });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({
      agentId: agent.agentId,
      state: "review",
      shouldSend: true,
      overrideLocked: false,
      reputation: { state: "review", verdict: "review", lastReason: "List cleaned", window: { sends: 0 } },
    });
    expect((await send(sim("success", 1))).status).toBe(200);
    expect(await reputation()).toMatchObject({ state: "review", window: { sends: 1, bounces: 0 } });

    const audit = await auditOf(agent.id);
    expect(audit.map((a) => [a.action, (a.metadata as { to?: string }).to])).toEqual(
      expect.arrayContaining([
        ["agent.reputation_changed", "throttled"],
        ["agent.reputation_changed", "quarantined"],
        ["agent.reputation_cleared", "review"],
      ]),
    );
    expect(audit.find((a) => a.action === "agent.reputation_changed")?.actor).toBe("system:reputation");
  });

  test("a complaint over the quarantine rate quarantines at once; a locked clear holds healthy whatever the rates", async () => {
    const { agent, send, reputation } = await boundAgent();
    expect((await send([...sim("success", 19), ...sim("complaint", 1)])).status).toBe(200);
    const q = await reputation();
    expect(q).toMatchObject({
      state: "quarantined",
      shouldSend: false,
      window: { sends: 20, complaints: 1 },
      rates: { complaintRate: 0.05 },
    });
    expect(q.lastReason).toContain("complaint rate");
    const locked = await req("POST", `/v1/agents/${agent.agentId}/reputation/clear`, { overrideLocked: true });
    expect(locked.body).toMatchObject({ state: "healthy", shouldSend: true, overrideLocked: true });
    expect((await send(sim("bounce", 25))).status).toBe(200);
    expect(await reputation()).toMatchObject({
      state: "healthy",
      overrideLocked: true,
      shouldSend: true,
      window: { sends: 25, bounces: 25 },
      rates: { bounceRate: 1 },
    });
    expect((await send(sim("success", 1))).status).toBe(200);
    // Unlocked, the rates since that clear decide again.
    await req("POST", `/v1/agents/${agent.agentId}/reputation/clear`, { overrideLocked: false });
    expect((await send(sim("bounce", 20))).status).toBe(200);
    expect(await reputation()).toMatchObject({ state: "quarantined", overrideLocked: false });
  });

  test("throttled: at most REPUTATION_THROTTLED_SENDS_PER_HOUR sends an hour, then 429 rate_limited with Retry-After", async () => {
    env.REPUTATION_THROTTLED_SENDS_PER_HOUR = 3;
    try {
      const { send, reputation } = await boundAgent();
      // 2 bounces of 28 (7%): throttled, and still over 5% after two more delivered sends.
      expect((await send([...sim("success", 26), ...sim("bounce", 2)])).status).toBe(200);
      expect((await reputation()).state).toBe("throttled");
      expect((await send(sim("success", 1))).status).toBe(200);
      expect((await send(sim("success", 1))).status).toBe(200);
      const limited = await send(sim("success", 1));
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe("rate_limited");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      env.REPUTATION_THROTTLED_SENDS_PER_HOUR = 100;
    }
  });

  test("fewer recipients than REPUTATION_MIN_SENDS are not judged; sends without an agent count for none", async () => {
    const { send, reputation } = await boundAgent();
    expect((await send(sim("bounce", 5))).status).toBe(200);
    expect(await reputation()).toMatchObject({
      state: "healthy",
      window: { sends: 5, bounces: 5 },
      rates: { bounceRate: 1 },
    });
  });

  test("broadcasts: a throttled agent's must fit in the hour's allowance (429); a quarantined agent's are refused (403)", async () => {
    const { inbox, send, reputation } = await boundAgent();
    const audience = async (size: number) => {
      const id = (await req("POST", "/v1/audiences", { name: `Rep ${size}` })).body.list.id as string;
      const members = Array.from({ length: size }, (_, i) => ({ email: `member${i}-${id.slice(0, 8)}@example.com` }));
      expect((await req("POST", `/v1/audiences/${id}/members`, { members })).status).toBe(200);
      return (body: Record<string, unknown> = {}) =>
        req("POST", `/v1/audiences/${id}/send`, { inboxId: inbox.id, subject: "News", text: "x", ...body });
    };
    expect((await send([...sim("success", 19), ...sim("bounce", 1)])).status).toBe(200);
    expect(await reputation()).toMatchObject({ state: "throttled", window: { sends: 20 } });
    // One message sent this hour (to 20 recipients); the allowance is 100 messages: 100 members do not fit, 2 do.
    const tooMany = await (await audience(100))();
    expect(tooMany.status).toBe(429);
    expect(tooMany.body.error).toMatchObject({ code: "rate_limited", param: "inboxId" });
    expect(tooMany.body.error.message).toContain("this broadcast makes 100");
    const small = await audience(2);
    expect((await small()).status).toBe(202);
    expect((await send(sim("bounce", 2))).status).toBe(200);
    const quarantined = await small({ idempotencyKey: "again" });
    expect(quarantined.status).toBe(403);
    expect(quarantined.body.error.message).toContain("quarantined");
  });
});
