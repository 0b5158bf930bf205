import { expect, test } from "vitest";
import { call, newInbox, newKey, newOrg } from "./harness";

// Issue 10, items 4 and 5: key restrictions stick, and a key manages only keys it could have made.

test("a restricted key's child inherits its inbox and IP restrictions and may only narrow them", async () => {
  const org = await newOrg();
  const [a, b, c] = [await newInbox(org), await newInbox(org), await newInbox(org)];
  const parent = await newKey(org, {
    scopes: ["keys:write", "keys:read", "messages"],
    inboxIds: [a.id, b.id],
    allowedIps: ["127.0.0.0/8", "::1"],
  });

  // Omitted: inherited.
  const child = await call("POST", "/v1/api-keys", {
    key: parent.secret,
    body: { name: "child", scopes: ["messages:send"] },
  });
  expect(child.status).toBe(200);
  expect(child.body.apiKey.inboxIds).toEqual([a.id, b.id]);
  expect(child.body.apiKey.allowedIps).toEqual(["127.0.0.0/8", "::1"]);
  // The child is held to them.
  expect((await call("GET", "/v1/whoami", { key: child.body.secret, ip: "10.0.0.1" })).status).toBe(403);

  // Narrower: accepted.
  const narrow = await call("POST", "/v1/api-keys", {
    key: parent.secret,
    body: { name: "n", scopes: ["messages:send"], inboxIds: [b.id], allowedIps: ["127.0.0.1", "127.1.0.0/16"] },
  });
  expect(narrow.status).toBe(200);
  expect(narrow.body.apiKey).toMatchObject({ inboxIds: [b.id], allowedIps: ["127.0.0.1", "127.1.0.0/16"] });

  // Wider or unrestricted: refused, naming the field.
  const wider: [Record<string, unknown>, string][] = [
    [{ inboxIds: null }, "inboxIds"],
    [{ inboxIds: [] }, "inboxIds"],
    [{ inboxIds: [a.id, c.id] }, "inboxIds[1]"],
    [{ allowedIps: null }, "allowedIps"],
    [{ allowedIps: [] }, "allowedIps"],
    [{ allowedIps: ["10.0.0.1"] }, "allowedIps[0]"],
    [{ allowedIps: ["127.0.0.1", "0.0.0.0/0"] }, "allowedIps[1]"],
    [{ allowedIps: ["::/0"] }, "allowedIps[0]"],
  ];
  for (const [extra, param] of wider) {
    const res = await call("POST", "/v1/api-keys", {
      key: parent.secret,
      body: { name: "w", scopes: ["messages:send"], ...extra },
    });
    expect(res.status, JSON.stringify(extra)).toBe(403);
    expect(res.body.error).toMatchObject({ code: "not_permitted", param });
  }
});

test("no key widens its own restrictions (or another key's past its own) through PATCH", async () => {
  const org = await newOrg();
  const [a, b] = [await newInbox(org), await newInbox(org)];
  const k = await newKey(org, { scopes: ["keys:write", "keys:read"], inboxIds: [a.id], allowedIps: ["127.0.0.1"] });
  for (const body of [
    { inboxIds: null },
    { inboxIds: [] },
    { inboxIds: [a.id, b.id] },
    { allowedIps: null },
    { allowedIps: ["0.0.0.0/0"] },
  ]) {
    const res = await call("PATCH", `/v1/api-keys/${k.id}`, { key: k.secret, body });
    expect(res.status, JSON.stringify(body)).toBe(403);
    expect(res.body.error.code).toBe("not_permitted");
  }
  const self = await call("GET", `/v1/api-keys/${k.id}`, { key: k.secret });
  expect(self.body.apiKey).toMatchObject({ inboxIds: [a.id], allowedIps: ["127.0.0.1"] });

  // A sibling cannot be given more than the caller has either.
  const sibling = await newKey(org, { scopes: ["keys:read"], inboxIds: [b.id] });
  expect((await call("PATCH", `/v1/api-keys/${sibling.id}`, { key: k.secret, body: { inboxIds: null } })).status).toBe(
    403,
  );
  // Renaming, or narrowing within its own bounds, is fine.
  expect((await call("PATCH", `/v1/api-keys/${k.id}`, { key: k.secret, body: { name: "renamed" } })).status).toBe(200);
  const narrowed = await call("PATCH", `/v1/api-keys/${sibling.id}`, { key: k.secret, body: { inboxIds: [a.id] } });
  expect(narrowed.status).toBe(200);
  expect(narrowed.body.apiKey.inboxIds).toEqual([a.id]);

  // An unrestricted key (here the organization's admin key) may lift restrictions.
  const lifted = await call("PATCH", `/v1/api-keys/${k.id}`, {
    key: org.secret,
    body: { inboxIds: null, allowedIps: null },
  });
  expect(lifted.status).toBe(200);
  expect(lifted.body.apiKey).toMatchObject({ inboxIds: null, allowedIps: null });
});

test("inboxIds must name inboxes of the key's organization", async () => {
  const org = await newOrg();
  const other = await newOrg();
  const mine = await newInbox(org);
  const theirs = await newInbox(other);
  const unknown = "0190a5e4-0000-7000-8000-000000000001";
  for (const inboxIds of [[theirs.id], [mine.id, unknown]]) {
    const res = await call("POST", "/v1/api-keys", {
      key: org.secret,
      body: { name: "x", scopes: ["messages"], inboxIds },
    });
    expect(res.status, JSON.stringify(inboxIds)).toBe(404);
    expect(res.body.error).toMatchObject({ code: "resource_not_found", param: `inboxIds[${inboxIds.length - 1}]` });
  }
  const k = await newKey(org, { scopes: ["messages"], inboxIds: [mine.id] });
  const patched = await call("PATCH", `/v1/api-keys/${k.id}`, { key: org.secret, body: { inboxIds: [theirs.id] } });
  expect(patched.status).toBe(404);
  expect(patched.body.error).toMatchObject({ code: "resource_not_found", param: "inboxIds[0]" });
});

test("a key changes or revokes only keys whose scopes it holds (a keys:write key cannot touch an admin key)", async () => {
  const org = await newOrg();
  const manager = await newKey(org, { scopes: ["keys:write", "keys:read", "messages:read"] });
  for (const [method, path, body] of [
    ["POST", `/v1/api-keys/${org.apiKeyId}/revoke`, undefined],
    ["PATCH", `/v1/api-keys/${org.apiKeyId}`, { allowedIps: ["192.0.2.1"] }],
    ["PATCH", `/v1/api-keys/${org.apiKeyId}`, { name: "pwned" }],
  ] as const) {
    const res = await call(method, path, { key: manager.secret, body });
    expect(res.status, `${method} ${path}`).toBe(403);
    expect(res.body.error).toMatchObject({ code: "not_permitted", param: "keyId" });
    expect(res.body.error.message).toContain("admin");
  }
  const admin = await call("GET", `/v1/api-keys/${org.apiKeyId}`, { key: manager.secret });
  expect(admin.body.apiKey).toMatchObject({ status: "active", allowedIps: null });
  expect(admin.body.apiKey.name).not.toBe("pwned");

  // A key with a bundle's scope counts as holding it: a `messages:read` key is within reach, `messages` is not.
  const reader = await newKey(org, { scopes: ["messages:read"] });
  const sender = await newKey(org, { scopes: ["messages"] });
  expect((await call("POST", `/v1/api-keys/${reader.id}/revoke`, { key: manager.secret })).status).toBe(200);
  expect((await call("POST", `/v1/api-keys/${sender.id}/revoke`, { key: manager.secret })).status).toBe(403);
  // Itself: always within reach.
  expect(
    (await call("PATCH", `/v1/api-keys/${manager.id}`, { key: manager.secret, body: { name: "me" } })).status,
  ).toBe(200);
});
