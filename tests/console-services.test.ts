import { randomUUID } from "node:crypto";
import { encode } from "next-auth/jwt";
import { describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { wfRuns } from "@/db/schema";
import { tailEvents } from "@/lib/console/events-tail";
import { deliveryVolume, overview } from "@/lib/console/overview";
import { consolePrincipal } from "@/lib/auth/roles";
import { authSecret } from "@/lib/console/secret";
import { addMember } from "@/lib/organizations/service";
import { listWorkflowRuns } from "@/lib/workflows/runs";
import { call, newInbox, newOrg } from "./harness";

/** The console's own services: the overview's aggregates, the event tail's checks, run scoping. */

async function cookieFor(userId: string): Promise<string> {
  const name = "authjs.session-token";
  return `${name}=${await encode({ token: { sub: userId }, secret: await authSecret(await getDb()), salt: name, maxAge: 600 })}`;
}

describe("overview", () => {
  test("counts, messages in and out, and the delivery volume by outcome come from the organization's data only", async () => {
    const db = await getDb();
    const org = await newOrg();
    const other = await newOrg();
    const a = await newInbox(org, "ov-a");
    const b = await newInbox(org, "ov-b");
    const theirs = await newInbox(other, "ov-other");
    for (const to of [b.address, "someone@example.com", "bounce@simulator.amazonses.com"]) {
      const res = await call("POST", "/v1/messages", { key: org.secret, body: { inboxId: a.id, to, text: "hi" } });
      expect(res.status).toBe(200);
    }
    // The other organization's sends must not show up in this one's figures.
    await call("POST", "/v1/messages", {
      key: other.secret,
      body: { inboxId: theirs.id, to: "bounce@simulator.amazonses.com", text: "x" },
    });
    const owner = consolePrincipal({ orgId: org.orgId, userId: org.userId, role: "owner" });
    const o = await overview(db, owner);
    expect(o.counts.inboxes).toBe(2);
    expect(o.counts.activeApiKeys).toBe(1);
    expect(o.messages).toEqual({ inbound: 1, outbound: 3 });

    // Internal delivery (b) is delivered at once; the simulator's bounce is "bounced"; the other is delivered.
    const now = new Date();
    const sum = (v: Awaited<ReturnType<typeof deliveryVolume>>) =>
      v.buckets.reduce((n, b) => n + Object.values(b.counts).reduce((x, y) => x + y, 0), 0);
    for (const [range, length, bucket] of [
      ["24h", 24, "hour"],
      ["7d", 7, "day"],
      ["30d", 30, "day"],
    ] as const) {
      const v = await deliveryVolume(db, owner, range, now);
      expect(v.bucket).toBe(bucket);
      expect(v.buckets).toHaveLength(length);
      expect(v.totals).toMatchObject({ sent: 0, bounced: 1, delivered: 2, complained: 0, failed: 0 });
      expect(sum(v)).toBe(3);
    }
    const day = await deliveryVolume(db, owner, "7d", now);
    expect(day.buckets.at(-1)?.start).toBe(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
    expect(Object.values(day.buckets.at(-1)?.counts ?? {}).reduce((x, y) => x + y, 0)).toBeGreaterThan(0);
    const hour = await deliveryVolume(db, owner, "24h", now);
    expect(hour.buckets.at(-1)?.start).toBe(`${now.toISOString().slice(0, 13)}:00:00Z`);
    const [h0, h1] = hour.buckets.map((b) => new Date(b.start).getTime());
    expect((h1 ?? 0) - (h0 ?? 0)).toBe(3600_000);
    // A day later the sends are out of the 24-hour range, and in the 7-day range but not in its last day.
    const later = new Date(now.getTime() + 24 * 3600_000);
    expect(sum(await deliveryVolume(db, owner, "24h", later))).toBe(0);
    const week = await deliveryVolume(db, owner, "7d", later);
    expect(sum(week)).toBe(3);
    expect(Object.values(week.buckets.at(-1)?.counts ?? {}).every((n) => n === 0)).toBe(true);

    // A member's overview hides what their role cannot read.
    const asMember = await overview(db, consolePrincipal({ orgId: org.orgId, userId: org.userId, role: "member" }));
    expect(asMember.counts.activeApiKeys).toBeNull();
    expect(asMember.counts.inboxes).toBe(2);
  });
});

describe("event tail (console long-poll endpoint)", () => {
  test("needs a session and membership; returns the organization's events after the cursor", async () => {
    const org = await newOrg();
    const stranger = await newOrg();
    const q = (params: Record<string, string>) => new URLSearchParams(params);

    expect((await tailEvents(null, q({ wait: "0" }))).status).toBe(401);
    expect((await tailEvents("authjs.session-token=forged", q({ wait: "0" }))).status).toBe(401);
    const cookie = await cookieFor(org.userId);
    expect((await tailEvents(cookie, q({ wait: "0", org: stranger.orgId }))).status).toBe(403);
    expect((await tailEvents(cookie, q({ wait: "0", bogus: "1" }))).status).toBe(400);

    const first = await tailEvents(`${cookie}; svc_org=${org.orgId}`, q({ wait: "0" }));
    expect(first.status).toBe(200);
    const inbox = await newInbox(org, "tail");
    const started = Date.now();
    const waiting = tailEvents(
      `${cookie}; svc_org=${org.orgId}`,
      q({ wait: "10", ...("cursor" in first.body && first.body.cursor ? { cursor: first.body.cursor } : {}) }),
    );
    await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, to: "tail@example.com", text: "wake up" },
    });
    const woke = await waiting;
    expect(woke.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(9_000);
    const types = "data" in woke.body ? woke.body.data.map((e) => e.type) : [];
    expect(types).toContain("message.sent");

    // A member of another organization never sees these events.
    const outsider = await cookieFor(stranger.userId);
    const theirs = await tailEvents(`${outsider}; svc_org=${org.orgId}`, q({ wait: "0" }));
    expect(theirs.status).toBe(200);
    expect("data" in theirs.body ? theirs.body.data.filter((e) => JSON.stringify(e).includes(inbox.id)) : []).toEqual(
      [],
    );
  });

  test("a member (who reads events) may tail the organization they joined", async () => {
    const db = await getDb();
    const org = await newOrg();
    const member = await newOrg();
    const before = await tailEvents(await cookieFor(member.userId), new URLSearchParams({ wait: "0", org: org.orgId }));
    expect(before.status).toBe(403);
    await addMember(db, org.orgId, member.userId, "member", { actor: "system:test", ip: null });
    const after = await tailEvents(await cookieFor(member.userId), new URLSearchParams({ wait: "0", org: org.orgId }));
    expect(after.status).toBe(200);
  });
});

describe("workflow runs in the console", () => {
  test("an organization sees only runs whose event names it or its webhooks", async () => {
    const db = await getDb();
    const org = await newOrg();
    const other = await newOrg();
    const hook = await call("POST", "/v1/webhooks", {
      key: org.secret,
      body: { url: "http://127.0.0.1:9/x", events: ["message.sent"] },
    });
    expect(hook.status).toBe(200);
    const run = (data: Record<string, unknown>) => ({
      functionId: `svc-test-${randomUUID().slice(0, 6)}`,
      event: { id: randomUUID(), name: "test/run", data, ts: Date.now() },
      status: "completed" as const,
      maxAttempts: 1,
    });
    const runs = [
      run({ orgId: org.orgId }),
      run({ webhookId: hook.body.webhook.id }),
      run({ orgId: other.orgId }),
      run({}),
    ];
    await db.insert(wfRuns).values(runs);
    const mine = await listWorkflowRuns(db, { limit: 100, orgId: org.orgId });
    expect(mine.runs.map((r) => r.event.id).sort()).toEqual([runs[0]?.event.id, runs[1]?.event.id].sort());
  });
});
