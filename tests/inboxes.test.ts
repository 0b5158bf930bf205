import { expect, test } from "vitest";
import { env } from "@/lib/env";
import { call, newInbox, newOrg } from "./harness";

test("create, list, get, update and delete an inbox on the shared domain", async () => {
  const org = await newOrg();
  const address = `Support-${Date.now()}@${env.SHARED_DOMAIN.toUpperCase()}`;
  const created = await call("POST", "/v1/inboxes", {
    key: org.secret,
    body: { address, displayName: "Support", agent: "triage" },
  });
  expect(created.status).toBe(200);
  const inbox = created.body.inbox;
  expect(inbox).toMatchObject({
    object: "inbox",
    address: address.toLowerCase(),
    displayName: "Support",
    mode: "agent",
    agent: "triage",
    status: "active",
    channel: "email",
  });
  expect((await call("GET", "/v1/inboxes", { key: org.secret })).body.inboxes.map((i: { id: string }) => i.id)).toEqual(
    [inbox.id],
  );
  expect((await call("GET", `/v1/inboxes/${inbox.id}`, { key: org.secret })).body.inbox).toEqual(inbox);

  const upd = await call("PATCH", `/v1/inboxes/${inbox.id}`, {
    key: org.secret,
    body: { mode: "human", agent: null, status: "paused", displayName: "Help" },
  });
  expect(upd.body.inbox).toMatchObject({ mode: "human", agent: null, status: "paused", displayName: "Help" });
  const bad = await call("PATCH", `/v1/inboxes/${inbox.id}`, { key: org.secret, body: { status: "deleted" } });
  expect(bad.status).toBe(400);
  expect(bad.body.error.param).toBe("status");

  const del = await call("DELETE", `/v1/inboxes/${inbox.id}`, { key: org.secret });
  expect(del.body.inbox.status).toBe("deleted");
  expect((await call("GET", "/v1/inboxes", { key: org.secret })).body.inboxes).toEqual([]);
  expect((await call("GET", `/v1/inboxes/${inbox.id}`, { key: org.secret })).body.inbox.status).toBe("deleted");
  expect((await call("PATCH", `/v1/inboxes/${inbox.id}`, { key: org.secret, body: { status: "active" } })).status).toBe(
    400,
  );
});

test("addresses must be valid, unique, and on a verified domain of the organization", async () => {
  const org = await newOrg();
  const taken = await newInbox(org, "taken");
  const other = await newOrg();
  const cases: [string, number][] = [
    ["no-at-sign", 400],
    [`.dot@${env.SHARED_DOMAIN}`, 400],
    ["someone@not-ours.example.com", 400],
    [taken.address, 409],
  ];
  for (const [address, status] of cases) {
    const res = await call("POST", "/v1/inboxes", { key: other.secret, body: { address } });
    expect(res.status, address).toBe(status);
    expect(res.body.error.param).toBe("address");
  }
  const pendingDomain = `p${Date.now()}.example.test`;
  await call("POST", "/v1/domains", { key: org.secret, body: { name: pendingDomain } });
  const pending = await call("POST", "/v1/inboxes", { key: org.secret, body: { address: `a@${pendingDomain}` } });
  expect(pending.status).toBe(400);
  expect(pending.body.error.message).toContain("not verified");
});
