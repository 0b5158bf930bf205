import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { getDb } from "@/db";
import { auditLogs, organizations } from "@/db/schema";
import { createApiKey, listApiKeys } from "@/lib/api-keys/operations";
import { consolePrincipal } from "@/lib/auth/roles";
import { authenticate } from "@/lib/api-keys/authenticate";
import type { Actor } from "@/lib/core/actor";
import { noAuditNeeded } from "@/lib/core/audit";
import { defineContract } from "@/lib/core/contract";
import { invoke } from "@/lib/core/invoke";
import { defineOperation } from "@/lib/core/operation";
import { listInboxes } from "@/lib/inboxes/operations";
import { replyInThread } from "@/lib/messages/operations";
import {
  deleteOrganization,
  listOrganizations,
  removeMember,
  renameOrganization,
} from "@/lib/organizations/operations";
import { addMember } from "@/lib/organizations/service";
import { call, newInbox, newOrg, type TestOrg } from "./harness";

/** `invoke` with every kind of actor, the audit policy, and the console-only operations. */

const userActor = (
  org: TestOrg,
  role: "owner" | "admin" | "member",
  userId = org.userId,
): Extract<Actor, { type: "user" }> => ({
  type: "user",
  userId,
  email: null,
  org: { id: org.orgId, role },
  principal: consolePrincipal({ orgId: org.orgId, userId, role }),
  ip: null,
});

describe("access by actor", () => {
  test("a console user acts with the scopes of their role", async () => {
    const org = await newOrg();
    const asMember = userActor(org, "member");
    expect((await invoke(listInboxes, asMember)).status).toBe(200);
    await expect(invoke(listApiKeys, asMember)).rejects.toMatchObject({
      status: 403,
      code: "scope_missing",
      message: expect.stringContaining("Your role (member)"),
    });
    const created = await invoke(createApiKey, userActor(org, "admin"), {
      body: { name: "from console", scopes: ["keys:read"] },
    });
    expect(created.data.secret).toMatch(/^svc_live_/);
    const [row] = await (await getDb())
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.resourceId, created.data.apiKey.id)));
    expect(row?.actor).toBe(`user:${org.userId}`);
  });

  test("session operations need a user; key operations need an organization actor", async () => {
    const org = await newOrg();
    const key = { type: "apiKey", principal: await authenticate(`Bearer ${org.secret}`, null, "req_test") } as const;
    await expect(invoke(listOrganizations, key)).rejects.toMatchObject({ status: 401, code: "session_required" });
    await expect(invoke(listInboxes, { type: "anonymous", ip: null })).rejects.toMatchObject({
      status: 401,
      code: "missing_api_key",
    });
    const bare = { ...userActor(org, "owner"), org: null, principal: null };
    await expect(invoke(listInboxes, bare)).rejects.toMatchObject({ status: 403 });
    expect((await invoke(listOrganizations, bare)).data.organizations.map((o) => o.id)).toContain(org.orgId);
    const system = { type: "system", job: "test", principal: key.principal } as const;
    expect((await invoke(listInboxes, system)).status).toBe(200);
  });

  test("an agent passport acts with its key's scopes and is audited as the agent", async () => {
    const org = await newOrg();
    const key = await authenticate(`Bearer ${org.secret}`, null, "req_test");
    const agent = { type: "agent", principal: key, agentId: "agt_0123456789abcdef0123456789abcdef" } as const;
    const created = await invoke(createApiKey, agent, { body: { name: "by an agent", scopes: ["inboxes:read"] } });
    const [row] = await (await getDb())
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.resourceId, created.data.apiKey.id)));
    expect(row?.actor).toBe(`agent:${agent.agentId}`);
    const narrow = { ...agent, principal: await authenticate(`Bearer ${created.data.secret}`, null, "req_test") };
    expect((await invoke(listInboxes, narrow)).status).toBe(200);
    await expect(invoke(listApiKeys, narrow)).rejects.toMatchObject({ status: 403, code: "scope_missing" });
  });

  test("a NUL byte anywhere in the input is a 400 naming the field, for every actor", async () => {
    const org = await newOrg();
    await expect(
      invoke(createApiKey, userActor(org, "owner"), { body: { name: "a\u0000b", scopes: ["keys:read"] } }),
    ).rejects.toMatchObject({ status: 400, param: "name" });
    await expect(invoke(listInboxes, userActor(org, "owner"), { query: { "x\u0000": "1" } })).rejects.toMatchObject({
      status: 400,
      param: "x\u0000",
    });
    await expect(
      invoke(createApiKey, userActor(org, "owner"), {
        body: { name: "k", scopes: ["keys:read"], allowedIps: ["10.0.0.1", "a\u0000"] },
      }),
    ).rejects.toMatchObject({ status: 400, param: "allowedIps[1]" });
  });

  test("input nested deeper than MAX_INPUT_DEPTH is a 400, not a stack overflow (found by the fuzz suite)", async () => {
    const org = await newOrg();
    let deep: unknown = "x";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    await expect(
      invoke(createApiKey, userActor(org, "owner"), { body: { name: "k", scopes: ["keys:read"], extra: deep } }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining("nested more than") });
    let fine: unknown = "x";
    for (let i = 0; i < 20; i++) fine = [fine];
    await expect(
      invoke(createApiKey, userActor(org, "owner"), { body: { name: "k", scopes: ["keys:read"], extra: fine } }),
    ).rejects.toMatchObject({ status: 400, param: "extra" });
  });

  test("a string that is not well-formed Unicode (a lone surrogate) is a 400 naming the field, in any part of the input (issue 22)", async () => {
    const org = await newOrg();
    const owner = userActor(org, "owner");
    for (const [input, param] of [
      [{ body: { name: "k\ud800", scopes: ["keys:read"] } }, "name"],
      [{ body: { name: "k", scopes: ["keys:read"], allowedIps: ["10.0.0.1", "\udfffa"] } }, "allowedIps[1]"],
      [{ body: { name: "k", scopes: ["keys:read"], ["x\ud83d"]: 1 } }, "x\ufffd"],
      [{ query: { cursor: "\ud800" }, body: { name: "k", scopes: ["keys:read"] } }, "cursor"],
      [{ params: { keyId: "\udc00" }, body: { name: "k", scopes: ["keys:read"] } }, "keyId"],
    ] as const) {
      await expect(invoke(createApiKey, owner, input)).rejects.toMatchObject({
        status: 400,
        code: "invalid_request",
        param,
        message: expect.stringContaining("not well-formed Unicode"),
      });
    }
    // A surrogate pair is text: the emoji passes this check (and the key is made).
    await expect(
      invoke(createApiKey, owner, { body: { name: "k \ud83d\ude00", scopes: ["keys:read"] } }),
    ).resolves.toMatchObject({ status: 200 });
  });
});

describe("audit policy", () => {
  const op = (handler: () => Promise<unknown>, audit?: { none: string }) =>
    defineOperation(
      defineContract({
        id: `test${randomUUID().slice(0, 6)}`,
        method: "POST",
        path: "/v1/test",
        access: "key",
        tag: "Test",
        summary: "test",
        response: z.object({ ok: z.literal(true) }),
      }),
      handler as () => Promise<{ ok: true }>,
      { audit },
    );

  test("a mutating operation that writes no audit row fails in development and tests", async () => {
    const org = await newOrg();
    const actor = userActor(org, "owner");
    await expect(
      invoke(
        op(() => Promise.resolve({ ok: true })),
        actor,
      ),
    ).rejects.toThrow(/without an audit row/);
    // Saying why nothing changed, or declaring the operation outside the audit trail, is fine.
    const noop = op(() => {
      noAuditNeeded("nothing to change");
      return Promise.resolve({ ok: true });
    });
    expect((await invoke(noop, actor)).data).toEqual({ ok: true });
    expect(
      (
        await invoke(
          op(() => Promise.resolve({ ok: true }), { none: "test" }),
          actor,
        )
      ).data,
    ).toEqual({ ok: true });
  });

  test("ctx.audit writes the row with the actor filled in, in the caller's transaction", async () => {
    const org = await newOrg();
    const audited = defineOperation(
      defineContract({
        id: "testAudited",
        method: "POST",
        path: "/v1/test",
        access: "key",
        tag: "Test",
        summary: "test",
        response: z.object({ ok: z.literal(true) }),
      }),
      async ({ db, audit }) => {
        await db.transaction((tx) => audit(tx, { action: "test.done", resourceType: "test", resourceId: "r1" }));
        return { ok: true as const };
      },
    );
    await invoke(audited, userActor(org, "admin"));
    const [row] = await (await getDb())
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.action, "test.done")));
    expect(row).toMatchObject({ actor: `user:${org.userId}`, resourceId: "r1" });
  });
});

describe("console-only operations", () => {
  test("reply in a thread goes to the other party and joins the thread", async () => {
    const org = await newOrg();
    const a = await newInbox(org, "reply-a");
    const sent = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: a.id, to: "someone@example.com", subject: "Hello", text: "first" },
    });
    const threadId = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message
      .threadId as string;
    const reply = await invoke(replyInThread, userActor(org, "member"), {
      params: { threadId },
      body: { text: "second" },
    });
    expect(reply.data.status).toBe("sent");
    const thread = (await call("GET", `/v1/threads/${threadId}`, { key: org.secret })).body.thread;
    expect(thread.messages.map((m: { subject: string; to: string[] }) => [m.subject, m.to])).toEqual([
      ["Hello", ["someone@example.com"]],
      ["Re: Hello", ["someone@example.com"]],
    ]);
    const stranger = await newOrg();
    await expect(
      invoke(replyInThread, userActor(stranger, "owner"), { params: { threadId }, body: { text: "x" } }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      invoke(replyInThread, userActor(org, "member"), { params: { threadId }, body: { text: "  " } }),
    ).rejects.toMatchObject({ status: 400, param: "text" });
  });

  test("renaming an organization: owner or admin, with an audit row naming the old and new name", async () => {
    const org = await newOrg();
    const db = await getDb();
    const member = await newOrg();
    await addMember(db, org.orgId, member.userId, "member", { actor: "system:test", ip: null });
    const asMember = { ...userActor(org, "member", member.userId), org: null, principal: null };
    await expect(
      invoke(renameOrganization, asMember, { params: { orgId: org.orgId }, body: { name: "Nope" } }),
    ).rejects.toMatchObject({ code: "not_permitted" });
    const asOwner = { ...userActor(org, "owner"), org: null, principal: null };
    await expect(
      invoke(renameOrganization, asOwner, { params: { orgId: org.orgId }, body: { name: "  " } }),
    ).rejects.toMatchObject({ status: 400, param: "name" });
    const [before] = await db.select().from(organizations).where(eq(organizations.id, org.orgId));
    const renamed = await invoke(renameOrganization, asOwner, {
      params: { orgId: org.orgId },
      body: { name: " Acme Robotics " },
    });
    expect(renamed.data.organization).toMatchObject({ id: org.orgId, name: "Acme Robotics", slug: before?.slug });
    const audit = await db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.action, "organization.renamed")));
    expect(audit).toHaveLength(1);
    expect(audit[0]?.metadata).toEqual({ from: before?.name, to: "Acme Robotics" });
    // The same name again changes nothing and records nothing.
    await invoke(renameOrganization, asOwner, { params: { orgId: org.orgId }, body: { name: "Acme Robotics" } });
    const again = await db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.action, "organization.renamed")));
    expect(again).toHaveLength(1);
  });

  test("deleting an organization: owner only, with its name, through the session operation", async () => {
    const org = await newOrg();
    const db = await getDb();
    const [{ name } = { name: "" }] = await db
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, org.orgId));
    const admin = await newOrg();
    await addMember(db, org.orgId, admin.userId, "admin", { actor: "system:test", ip: null });
    const asAdmin = { ...userActor(org, "admin", admin.userId), org: null, principal: null };
    await expect(
      invoke(deleteOrganization, asAdmin, { params: { orgId: org.orgId }, body: { confirm: name } }),
    ).rejects.toMatchObject({ code: "not_permitted" });
    const asOwner = { ...userActor(org, "owner"), org: null, principal: null };
    await expect(
      invoke(deleteOrganization, asOwner, { params: { orgId: org.orgId }, body: { confirm: "wrong" } }),
    ).rejects.toMatchObject({ param: "confirm" });
    expect(
      (await invoke(deleteOrganization, asOwner, { params: { orgId: org.orgId }, body: { confirm: name } })).data,
    ).toEqual({ deleted: true, orgId: org.orgId });
    expect((await call("GET", "/v1/whoami", { key: org.secret })).status).toBe(401);
    // A member may leave; the generic session operation checks the role itself.
    await expect(
      invoke(removeMember, asAdmin, { params: { orgId: org.orgId, userId: admin.userId } }),
    ).rejects.toMatchObject({ status: 404 });
  });
});
