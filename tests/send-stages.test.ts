import { and, eq, inArray } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { suppressions } from "@/db/schema";
import { agentOfSend } from "@/lib/agents/agent";
import { connectionsOf } from "@/lib/inboxes/connections";
import { findInbox, inboxesByAddress } from "@/lib/inboxes/service";
import type { Principal } from "@/lib/auth/principal";
import { channelAdapter } from "@/lib/channels";
import type { SendMessageInput } from "@/lib/messages/contracts";
import { attachFiles } from "@/lib/messages/stages/attach";
import { applyPolicy } from "@/lib/messages/stages/policy";
import { renderSend } from "@/lib/messages/stages/render";
import { readAhead } from "@/lib/messages/stages/read";
import { resolveSend } from "@/lib/messages/stages/resolve";
import { signSend } from "@/lib/messages/stages/sign";
import { validateRequest } from "@/lib/messages/stages/validate";
import { call, newInbox, newOrg, type TestOrg } from "./harness";

const principalOf = (org: TestOrg, inboxIds: string[] | null = null): Principal => ({
  orgId: org.orgId,
  userId: org.userId,
  apiKeyId: org.apiKeyId,
  scopes: new Set(["messages:send"]),
  inboxIds,
  actor: "test",
  ip: null,
  requestId: null,
});

const input = (over: Partial<SendMessageInput>): SendMessageInput => ({
  inboxId: "01930000-0000-7000-8000-000000000000",
  to: "x@example.com",
  ...over,
});

async function refusal(fn: () => unknown): Promise<{ code: string; param: string | null }> {
  try {
    await fn();
  } catch (err) {
    const e = err as { code: string; param: string | null };
    return { code: e.code, param: e.param };
  }
  throw new Error("expected a refusal");
}

test("validate: reserved headers, attachments and the schedule window, naming the field; nothing looked up", async () => {
  const now = new Date("2026-01-01T00:00:00Z");
  expect(await refusal(() => validateRequest(input({ headers: { "Message-ID": "<x@y>" } }), now))).toMatchObject({
    code: "invalid_request",
    param: "headers.Message-ID",
  });
  expect(
    await refusal(() => validateRequest(input({ attachments: [{ filename: "a", contentBase64: "***" }] }), now)),
  ).toMatchObject({ param: "attachments[0].contentBase64" });
  expect(await refusal(() => validateRequest(input({ sendAt: "2025-12-31T00:00:00Z" }), now))).toMatchObject({
    param: "sendAt",
  });
  expect(await refusal(() => validateRequest(input({ sendAt: "2026-03-01T00:00:00Z" }), now))).toMatchObject({
    param: "sendAt",
  });
  expect(await refusal(() => validateRequest(input({ template: { id: "t" }, text: "x" }), now))).toMatchObject({
    param: "template",
  });
  const ok = validateRequest(
    input({
      headers: { "X-A": "1" },
      attachments: [{ filename: "a.txt", contentBase64: "aGk=" }],
      sendAt: "2026-01-02T00:00:00Z",
    }),
    now,
  );
  expect(ok.headers).toEqual({ "X-A": "1" });
  expect(ok.attachments[0]).toMatchObject({ param: "attachments[0]", inline: { filename: "a.txt" } });
  const first = ok.attachments[0];
  expect(first && "inline" in first ? first.inline.content.toString() : null).toBe("hi");
  expect(
    validateRequest(input({ attachments: [{ objectId: "x", filename: "n.pdf", delivery: "auto" }] }), now).attachments,
  ).toEqual([{ param: "attachments[0]", object: { id: "x", filename: "n.pdf", contentType: null, delivery: "auto" } }]);
  expect(
    await refusal(() =>
      validateRequest(input({ attachments: [{ objectId: "x", contentBase64: "aGk=", filename: "a" }] }), now),
    ),
  ).toMatchObject({ param: "attachments[0]" });
  expect(await refusal(() => validateRequest(input({ attachments: [{ filename: "a" }] }), now))).toMatchObject({
    param: "attachments[0]",
  });
  expect(
    await refusal(() =>
      validateRequest(input({ attachments: [{ filename: "a", contentBase64: "aGk=", delivery: "link" }] }), now),
    ),
  ).toMatchObject({ param: "attachments[0].delivery" });
  expect(ok.sendAt?.toISOString()).toBe("2026-01-02T00:00:00.000Z");
});

test("resolve: recipients normalized and de-duplicated, inboxes of the service found, the channel chosen", async () => {
  const org = await newOrg();
  const from = await newInbox(org, "stage-from");
  const peer = await newInbox(org, "stage-peer");
  const db = await getDb();
  const now = new Date();
  const r = await resolveSend(
    db,
    principalOf(org),
    validateRequest(
      input({ inboxId: from.id, to: [peer.address.toUpperCase(), "Out@Example.com"], cc: "out@example.com" }),
      now,
    ),
  );
  expect(r.recipients).toEqual([peer.address, "out@example.com"]);
  expect([...r.internal.keys()]).toEqual([peer.address]);
  expect(r.channel.id).toBe("email");
  const internalOnly = await resolveSend(
    db,
    principalOf(org),
    validateRequest(input({ inboxId: from.id, to: peer.address }), now),
  );
  expect(internalOnly.channel.id).toBe("a2a");
  const many = Array.from({ length: 51 }, (_, i) => `r${i}@example.com`);
  expect(
    await refusal(() => resolveSend(db, principalOf(org), validateRequest(input({ inboxId: from.id, to: many }), now))),
  ).toMatchObject({ param: "to" });
  expect(
    await refusal(() =>
      resolveSend(db, principalOf(org), validateRequest(input({ inboxId: from.id, to: "@contact" }), now)),
    ),
  ).toMatchObject({ param: "to" });
});

test("policy: the key's inboxes, the inbox's status, the channel's rules and complaints", async () => {
  const org = await newOrg();
  const from = await newInbox(org, "pol-from");
  const other = await newInbox(org, "pol-other");
  const db = await getDb();
  const now = new Date();
  const draft = async (over: Partial<SendMessageInput>, principal = principalOf(org)) =>
    renderSend(db, await resolveSend(db, principal, validateRequest(input({ inboxId: from.id, ...over }), now)));

  expect(await refusal(async () => applyPolicy(db, await draft({}, principalOf(org, [other.id]))))).toMatchObject({
    code: "not_permitted",
    param: "inboxId",
  });
  expect(
    await refusal(async () => applyPolicy(db, await draft({ to: "x@example.com", channel: "a2a" }))),
  ).toMatchObject({ param: "channel" });
  const approved = await applyPolicy(db, await draft({ to: other.address, subject: "s" }));
  expect(approved).toMatchObject({ subject: "s", warnings: [] });
  expect(approved.channel).toBe(channelAdapter("a2a"));

  await call("PATCH", `/v1/inboxes/${from.id}`, { key: org.secret, body: { status: "paused" } });
  const paused = await draft({});
  expect(await refusal(() => applyPolicy(db, paused))).toMatchObject({ code: "not_permitted", param: "inboxId" });
});

test("sign: DKIM-signed MIME under the Message-ID for external recipients; nothing for internal ones", async () => {
  const org = await newOrg();
  const from = await newInbox(org, "sign-from");
  const peer = await newInbox(org, "sign-peer");
  const db = await getDb();
  const approve = async (to: string) =>
    attachFiles(
      db,
      await applyPolicy(
        db,
        await renderSend(
          db,
          await resolveSend(
            db,
            principalOf(org),
            validateRequest(input({ inboxId: from.id, to, text: "hi" }), new Date()),
          ),
        ),
      ),
    );
  const signed = await signSend(db, await approve("out@example.com"), {
    id: "00000000-0000-7000-8000-000000000000",
    messageIdHeader: "<fixed@svc.localhost>",
  });
  expect(signed.external).toEqual(["out@example.com"]);
  const wire = signed.wire?.toString() ?? "";
  expect(wire).toMatch(/^DKIM-Signature: /);
  expect(wire).toContain("Message-ID: <fixed@svc.localhost>");
  const internal = await signSend(db, await approve(peer.address));
  expect(internal).toMatchObject({ wire: null, external: [], error: null });
  expect(internal.messageIdHeader).toMatch(/^<.+@svc\.localhost>$/);
});

test("read-ahead: one statement answers the rows each stage would read (inbox, connections, agent, inboxes, complaints, budgets)", async () => {
  const org = await newOrg();
  const from = await newInbox(org, "ahead-from");
  const peer = await newInbox(org, "ahead-peer");
  const db = await getDb();
  const principal = principalOf(org);
  const req = (over: Partial<SendMessageInput>) => validateRequest(input({ inboxId: from.id, ...over }), new Date());
  const plain = await readAhead(db, principal, req({ to: "Out@Example.com" }));
  expect(plain).toMatchObject({ bindings: [], inboxes: [], suppressions: [], budgeted: false });

  const agent = (await call("POST", "/v1/agents", { key: org.secret, body: { display: "Ahead" } })).body;
  const agentId = agent.agent?.agentId ?? agent.agentId;
  expect(
    (await call("POST", `/v1/agents/${agentId}/bind`, { key: org.secret, body: { inboxId: from.id } })).status,
  ).toBe(200);
  await db
    .insert(suppressions)
    .values({ orgId: org.orgId, address: "angry@example.com", reason: "complaint", lastEventAt: new Date() });
  expect(
    (await call("PUT", "/v1/budgets", { key: org.secret, body: { scope: "account", limits: { maxSendsPerDay: 9 } } }))
      .status,
  ).toBe(200);
  const recipients = [peer.address, "angry@example.com"];
  const reads = await readAhead(
    db,
    principal,
    req({ to: [peer.address.toUpperCase(), " Angry@example.com"], cc: "@me" }),
  );
  expect(reads.inbox).toEqual(await findInbox(db, principal, from.id));
  expect(reads.connections).toEqual(await connectionsOf(db, from.id));
  expect(reads.connections.length).toBeGreaterThan(0);
  // A second agent bound to the key: the key's binding wins over the inbox's.
  const keyAgent = (await call("POST", "/v1/agents", { key: org.secret, body: { display: "Key" } })).body;
  const keyAgentId = keyAgent.agent?.agentId ?? keyAgent.agentId;
  const bindKey = await call("POST", `/v1/agents/${keyAgentId}/bind`, {
    key: org.secret,
    body: { apiKeyId: org.apiKeyId },
  });
  expect(bindKey.status).toBe(200);
  const reread = await readAhead(
    db,
    principal,
    req({ to: [peer.address.toUpperCase(), " Angry@example.com"], cc: "@me" }),
  );
  expect(reread.bindings).toHaveLength(2);
  const bound = await agentOfSend(db, org.orgId, org.apiKeyId, from.id);
  expect(bound?.display).toBe("Key");
  expect(await agentOfSend(db, org.orgId, org.apiKeyId, from.id, reread.bindings)).toEqual(bound);
  expect(new Map(reads.inboxes.map((i) => [i.address, i]))).toEqual(await inboxesByAddress(db, recipients));
  expect(reads.suppressions).toEqual(
    await db
      .select()
      .from(suppressions)
      .where(and(eq(suppressions.orgId, org.orgId), inArray(suppressions.address, recipients))),
  );
  expect(reads.budgeted).toBe(true);
  // A contact reference is not read ahead: the stage reads it itself.
  expect([...reads.addresses].sort()).toEqual(recipients.sort());
  // Another organization's inbox id reads as none (404 at the resolve stage).
  const other = await newOrg();
  expect((await readAhead(db, principalOf(other), req({}))).inbox).toBeNull();
});
