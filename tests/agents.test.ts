import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { auditLogs, signingKeys } from "@/db/schema";
import { call, newInbox, newKey, newOrg, type TestOrg } from "./harness";
import { newAgent } from "./resources";

/** Agent passports through /v1: ids, keys sealed at rest, status changes, bindings, audit rows. */
let org: TestOrg;
beforeAll(async () => {
  org = await newOrg();
});
const req = (method: string, path: string, body?: unknown) => call(method, path, { key: org.secret, body });

async function auditActions(resourceId: string): Promise<string[]> {
  const rows = await (await getDb())
    .select({ action: auditLogs.action })
    .from(auditLogs)
    .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.resourceId, resourceId)));
  return rows.map((r) => r.action).sort();
}

describe("agent passports", () => {
  test("a new agent has an agt_ id, reads back by agt_ id and UUID, and one Ed25519 key sealed at rest", async () => {
    const made = await req("POST", "/v1/agents", { display: "  Triage  ", description: "first line" });
    expect(made.status).toBe(200);
    const a = made.body.agent;
    expect(a).toMatchObject({
      object: "agent",
      display: "Triage",
      description: "first line",
      status: "active",
      revokedAt: null,
      bindings: { apiKeyIds: [], inboxIds: [] },
    });
    expect(a.agentId).toBe(`agt_${a.id.replace(/-/g, "")}`);
    expect(a.keys).toHaveLength(1);
    expect(a.keys[0]).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", status: "active" });
    for (const ref of [a.agentId, a.id, a.id.toUpperCase()]) {
      const got = await req("GET", `/v1/agents/${ref}`);
      expect(got.status, ref).toBe(200);
      expect(got.body.agent.id).toBe(a.id);
    }
    for (const ref of ["agt_nope", `agt_${"0".repeat(32)}`, "x"]) {
      const got = await req("GET", `/v1/agents/${ref}`);
      expect(got.status, ref).toBe(404);
      expect(got.body.error).toMatchObject({ code: "resource_not_found", param: "agentId" });
    }
    // The private key is stored only sealed (no `d` in the clear), under the agent's public id.
    const [key] = await (await getDb()).select().from(signingKeys).where(eq(signingKeys.kid, a.keys[0].kid));
    expect(key).toMatchObject({ purpose: "agent", agentId: a.agentId, orgId: org.orgId, status: "active" });
    expect(key?.privateKeyEnc).toMatch(/^v1\./);
    expect(key?.privateKeyEnc).not.toContain('"d"');
    expect(await auditActions(a.id)).toEqual(["agent.created"]);
  });

  test("validation: display 1..120 characters; unknown fields refused", async () => {
    for (const body of [{ display: "" }, { display: "x".repeat(121) }, {}, { display: "ok", extra: 1 }]) {
      const res = await req("POST", "/v1/agents", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });

  test("suspend, reactivate, revoke: revoked is final, its key revoked; DELETE twice changes nothing the second time", async () => {
    const a = await newAgent(org);
    const suspended = await req("PATCH", `/v1/agents/${a.agentId}`, { status: "suspended", display: "Paused one" });
    expect(suspended.status).toBe(200);
    expect(suspended.body.agent).toMatchObject({ status: "suspended", display: "Paused one" });
    expect(suspended.body.agent.keys[0].status).toBe("active");
    expect((await req("PATCH", `/v1/agents/${a.id}`, { status: "active" })).body.agent.status).toBe("active");
    const revoked = await req("DELETE", `/v1/agents/${a.agentId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.agent.status).toBe("revoked");
    expect(revoked.body.agent.revokedAt).not.toBeNull();
    expect(revoked.body.agent.keys[0].status).toBe("revoked");
    const again = await req("DELETE", `/v1/agents/${a.agentId}`);
    expect(again.status).toBe(200);
    expect(again.body.agent.revokedAt).toBe(revoked.body.agent.revokedAt);
    const change = await req("PATCH", `/v1/agents/${a.agentId}`, { status: "active" });
    expect(change.status).toBe(409);
    expect(change.body.error).toMatchObject({ code: "conflict", param: "agentId" });
    expect(await auditActions(a.id)).toEqual([
      "agent.created",
      "agent.reactivated",
      "agent.revoked",
      "agent.suspended",
    ]);
  });

  test("list: newest first, filtered by status, paginated", async () => {
    const mine = await newOrg();
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await newAgent(mine)).agentId);
    await call("PATCH", `/v1/agents/${made[0]}`, { key: mine.secret, body: { status: "suspended" } });
    const page1 = await call("GET", "/v1/agents?limit=2", { key: mine.secret });
    expect(page1.status).toBe(200);
    expect(page1.body.agents.map((a: { agentId: string }) => a.agentId)).toEqual([made[2], made[1]]);
    expect(page1.body.pagination.hasMore).toBe(true);
    const page2 = await call("GET", `/v1/agents?limit=2&cursor=${page1.body.pagination.nextCursor}`, {
      key: mine.secret,
    });
    expect(page2.body.agents.map((a: { agentId: string }) => a.agentId)).toEqual([made[0]]);
    const suspended = await call("GET", "/v1/agents?status=suspended", { key: mine.secret });
    expect(suspended.body.agents.map((a: { agentId: string }) => a.agentId)).toEqual([made[0]]);
  });

  test("bind: a key and an inbox of the organization; binding again moves them; unbind releases; another organization's are 404", async () => {
    const a = await newAgent(org);
    const b = await newAgent(org);
    const key = await newKey(org, { scopes: ["messages:send"] });
    const inbox = await newInbox(org);
    const bound = await req("POST", `/v1/agents/${a.agentId}/bind`, { apiKeyId: key.id, inboxId: inbox.id });
    expect(bound.status).toBe(200);
    expect(bound.body).toEqual({ agentId: a.agentId, bound: true, apiKeyId: key.id, inboxId: inbox.id });
    expect((await req("GET", `/v1/agents/${a.agentId}`)).body.agent.bindings).toEqual({
      apiKeyIds: [key.id],
      inboxIds: [inbox.id],
    });
    // Binding the key to b moves it; the inbox stays with a.
    expect((await req("POST", `/v1/agents/${b.agentId}/bind`, { apiKeyId: key.id })).status).toBe(200);
    expect((await req("GET", `/v1/agents/${a.agentId}`)).body.agent.bindings).toEqual({
      apiKeyIds: [],
      inboxIds: [inbox.id],
    });
    expect((await req("GET", `/v1/agents/${b.agentId}`)).body.agent.bindings).toEqual({
      apiKeyIds: [key.id],
      inboxIds: [],
    });
    const unbound = await req("POST", `/v1/agents/${a.agentId}/bind`, { inboxId: inbox.id, unbind: true });
    expect(unbound.body).toEqual({ agentId: a.agentId, bound: false, apiKeyId: null, inboxId: inbox.id });
    expect((await req("GET", `/v1/agents/${a.agentId}`)).body.agent.bindings.inboxIds).toEqual([]);

    const other = await newOrg();
    const theirs = await newInbox(other);
    const refused = await req("POST", `/v1/agents/${a.agentId}/bind`, { inboxId: theirs.id });
    expect(refused.status).toBe(404);
    expect(refused.body.error.param).toBe("inboxId");
    const theirKey = await req("POST", `/v1/agents/${a.agentId}/bind`, { apiKeyId: other.apiKeyId });
    expect(theirKey.status).toBe(404);
    expect(theirKey.body.error.param).toBe("apiKeyId");
    const empty = await req("POST", `/v1/agents/${a.agentId}/bind`, {});
    expect(empty.status).toBe(400);
    // A revoked agent takes no new bindings.
    await req("DELETE", `/v1/agents/${a.agentId}`);
    const late = await req("POST", `/v1/agents/${a.agentId}/bind`, { inboxId: inbox.id });
    expect(late.status).toBe(409);
    expect(await auditActions(a.id)).toEqual(["agent.bound", "agent.created", "agent.revoked", "agent.unbound"]);
  });

  test("concurrent binds of one key to two agents leave exactly one binding", async () => {
    const a = await newAgent(org);
    const b = await newAgent(org);
    const key = await newKey(org, { scopes: ["messages:send"] });
    const results = await Promise.all(
      [a, b, a, b].map((x) => req("POST", `/v1/agents/${x.agentId}/bind`, { apiKeyId: key.id })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const holders = [
      (await req("GET", `/v1/agents/${a.agentId}`)).body.agent,
      (await req("GET", `/v1/agents/${b.agentId}`)).body.agent,
    ].filter((x) => x.bindings.apiKeyIds.includes(key.id));
    expect(holders).toHaveLength(1);
  });
});
