import { beforeAll, describe, expect, test } from "vitest";
import { call, newInbox, newOrg, type TestOrg } from "./harness";
import { newContact } from "./resources";

/** Contacts through /v1: references (@alias, contact:<id>, @me), handles per channel, postal checks, history. */
let org: TestOrg;
beforeAll(async () => {
  org = await newOrg();
});
const req = (method: string, path: string, body?: unknown) => call(method, path, { key: org.secret, body });

describe("contacts and references", () => {
  test("a contact reads back by id, contact:<id> and @alias (any case); its handles are normalized", async () => {
    const made = await req("POST", "/v1/contacts", {
      displayName: "Ada Lovelace",
      alias: "Ada.L",
      kind: "person",
      info: "Analyst",
      metadata: { team: "engines" },
      handles: [
        { channel: "email", value: "Ada@Example.COM", isPrimary: true, label: "work" },
        { channel: "sms", value: "+49 30 1234 5678" },
      ],
    });
    expect(made.status).toBe(200);
    const c = made.body.contact;
    expect(c).toMatchObject({
      object: "contact",
      displayName: "Ada Lovelace",
      alias: "ada.l",
      kind: "person",
      isSelf: false,
      projectId: org.orgId,
      metadata: { team: "engines" },
    });
    expect(
      c.handles.map((h: { channel: string; value: string; isPrimary: boolean }) => [h.channel, h.value, h.isPrimary]),
    ).toEqual([
      ["email", "ada@example.com", true],
      ["sms", "+493012345678", false],
    ]);
    for (const ref of [c.id, `contact:${c.id}`, "@ada.l", "@ADA.L"]) {
      const got = await req("GET", `/v1/contacts/${encodeURIComponent(ref)}`);
      expect(got.status, ref).toBe(200);
      expect(got.body.contact.id).toBe(c.id);
    }
    for (const ref of ["@nobody", "contact:not-an-id", "ada"]) {
      const got = await req("GET", `/v1/contacts/${encodeURIComponent(ref)}`);
      expect(got.status, ref).toBe(404);
      expect(got.body.error.param).toBe("contactRef");
    }
  });

  test("aliases and handle values are unique in the organization (409 naming the field), but not across organizations", async () => {
    await newContact(org, { alias: "dup", handles: [{ channel: "email", value: "dup@example.com" }] });
    const alias = await req("POST", "/v1/contacts", { displayName: "Other", alias: "DUP" });
    expect(alias.status).toBe(409);
    expect(alias.body.error).toMatchObject({ code: "conflict", param: "alias" });
    const handle = await req("POST", "/v1/contacts", {
      displayName: "Other",
      handles: [
        { channel: "a2a", value: "x@example.com" },
        { channel: "email", value: "DUP@example.com" },
      ],
    });
    expect(handle.status).toBe(409);
    expect(handle.body.error.param).toBe("handles[1].value");
    // Nothing of the refused contact was kept.
    expect((await req("GET", "/v1/contacts?q=x%40example.com")).body.data).toHaveLength(0);
    const elsewhere = await newOrg();
    const ok = await call("POST", "/v1/contacts", {
      key: elsewhere.secret,
      body: { displayName: "Dup", alias: "dup", handles: [{ channel: "email", value: "dup@example.com" }] },
    });
    expect(ok.status).toBe(200);
  });

  test("@me is the organization's one self contact: made on first use, updatable, never deleted", async () => {
    const mine = await newOrg();
    const [a, b] = await Promise.all([
      call("GET", "/v1/contacts/@me", { key: mine.secret }),
      call("GET", "/v1/contacts/@me", { key: mine.secret }),
    ]);
    expect(a.status).toBe(200);
    expect(a.body.contact).toMatchObject({ kind: "self", isSelf: true });
    expect(b.body.contact.id).toBe(a.body.contact.id);
    const renamed = await call("PATCH", "/v1/contacts/@me", {
      key: mine.secret,
      body: { displayName: "Support desk" },
    });
    expect(renamed.body.contact).toMatchObject({ id: a.body.contact.id, displayName: "Support desk", kind: "self" });
    const kind = await call("PATCH", "/v1/contacts/@me", { key: mine.secret, body: { kind: "person" } });
    expect(kind.status).toBe(400);
    const del = await call("DELETE", `/v1/contacts/${a.body.contact.id}`, { key: mine.secret });
    expect(del.status).toBe(403);
    expect(del.body.error.code).toBe("not_permitted");
    const list = await call("GET", "/v1/contacts?kind=self", { key: mine.secret });
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([a.body.contact.id]);
  });

  test("update clears fields with null; delete removes the contact and its handles", async () => {
    const c = await newContact(org, { alias: "temp-1", info: "x", avatarUrl: "https://example.com/a.png" });
    const cleared = await req("PATCH", "/v1/contacts/@temp-1", {
      alias: null,
      info: null,
      avatarUrl: null,
      kind: "agent",
    });
    expect(cleared.body.contact).toMatchObject({ alias: null, info: null, avatarUrl: null, kind: "agent" });
    const del = await req("DELETE", `/v1/contacts/${c.id}`);
    expect(del.body).toEqual({ deleted: true, id: c.id });
    expect((await req("GET", `/v1/contacts/${c.id}`)).status).toBe(404);
    // The handle's value is free again.
    expect(
      (
        await req("POST", "/v1/contacts", {
          displayName: "Again",
          handles: [{ channel: "email", value: c.handles[0]?.value }],
        })
      ).status,
    ).toBe(200);
  });

  test("list pages newest first and searches names, aliases and handle values", async () => {
    const mine = await newOrg();
    const made = [];
    for (const name of ["Grace Hopper", "Alan Turing", "Katherine Johnson"])
      made.push(await newContact(mine, { displayName: name }));
    const p1 = await call("GET", "/v1/contacts?limit=2", { key: mine.secret });
    expect(p1.body).toMatchObject({ object: "list", pagination: { hasMore: true } });
    expect(p1.body.data.map((c: { id: string }) => c.id)).toEqual([made[2]?.id, made[1]?.id]);
    expect(p1.body.data[0]).not.toHaveProperty("handles");
    const p2 = await call("GET", `/v1/contacts?limit=2&cursor=${p1.body.pagination.nextCursor}`, { key: mine.secret });
    expect(p2.body.data.map((c: { id: string }) => c.id)).toEqual([made[0]?.id]);
    expect(
      (await call("GET", "/v1/contacts?q=turing", { key: mine.secret })).body.data.map((c: { id: string }) => c.id),
    ).toEqual([made[1]?.id]);
    const byHandle = await call("GET", `/v1/contacts?q=${encodeURIComponent(made[2]?.handles[0]?.value ?? "")}`, {
      key: mine.secret,
    });
    expect(byHandle.body.data.map((c: { id: string }) => c.id)).toEqual([made[2]?.id]);
    expect((await call("GET", "/v1/contacts?q=%25", { key: mine.secret })).body.data).toHaveLength(0);
  });
});

describe("handles", () => {
  test("one primary handle per channel: making another primary demotes the first", async () => {
    const c = await newContact(org);
    const second = await req("POST", `/v1/contacts/${c.id}/handles`, {
      channel: "email",
      value: `second-${Date.now()}@example.com`,
      isPrimary: true,
    });
    expect(second.status).toBe(200);
    expect(second.body.contactHandle).toMatchObject({
      object: "contact_handle",
      contactId: c.id,
      isPrimary: true,
      verified: false,
    });
    const handles = (await req("GET", `/v1/contacts/${c.id}`)).body.contact.handles;
    expect(handles.map((h: { isPrimary: boolean }) => h.isPrimary)).toEqual([false, true]);
    const back = await req("PATCH", `/v1/contacts/${c.id}/handles/${c.handles[0]?.id}`, {
      isPrimary: true,
      label: "home",
    });
    expect(back.body.contactHandle).toMatchObject({ isPrimary: true, label: "home" });
    const after = (await req("GET", `/v1/contacts/${c.id}`)).body.contact.handles;
    expect(after.map((h: { isPrimary: boolean }) => h.isPrimary)).toEqual([true, false]);
    const twoPrimaries = await req("POST", "/v1/contacts", {
      displayName: "Two",
      handles: [
        { channel: "email", value: "p1@example.org", isPrimary: true },
        { channel: "email", value: "p2@example.org", isPrimary: true },
      ],
    });
    expect(twoPrimaries.status).toBe(400);
    expect(twoPrimaries.body.error.param).toBe("handles[1].isPrimary");
    const gone = await req("DELETE", `/v1/contacts/${c.id}/handles/${second.body.contactHandle.id}`);
    expect(gone.body).toEqual({ deleted: true, id: second.body.contactHandle.id });
    // A handle of another contact is not found under this one.
    const other = await newContact(org);
    expect((await req("DELETE", `/v1/contacts/${c.id}/handles/${other.handles[0]?.id}`)).status).toBe(404);
  });

  test.each([
    [{ channel: "email", value: "not an address" }, "value"],
    [{ channel: "sms", value: "030 1234" }, "value"],
    [{ channel: "telegram", value: "@ab" }, "value"],
    [{ channel: "slack", value: "lower case" }, "value"],
    [
      {
        channel: "postal",
        value: "1 Main St",
        metadata: { name: "A", street: "1 Main St", postalCode: "10115", city: "Berlin" },
      },
      "metadata.country",
    ],
    [
      {
        channel: "postal",
        value: "1 Main St",
        metadata: { name: "A", postalCode: "10115", city: "Berlin", country: "DE" },
      },
      "metadata.street",
    ],
    [
      {
        channel: "postal",
        value: "1 Main St",
        metadata: { name: "A", street: "1 Main St", postalCode: "10115", city: "Berlin", country: "Atlantis" },
      },
      "metadata.country",
    ],
    [{ channel: "fax", value: "123" }, "channel"],
  ])("handle %j is refused naming %s", async (handle, param) => {
    const c = await newContact(org);
    const res = await req("POST", `/v1/contacts/${c.id}/handles`, handle);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", param });
  });

  test("a postal handle keeps its address with the country as an ISO code, by code or by name", async () => {
    const c = await newContact(org);
    for (const [country, code] of [
      ["de", "DE"],
      ["Germany", "DE"],
      ["United States", "US"],
    ]) {
      const res = await req("POST", `/v1/contacts/${c.id}/handles`, {
        channel: "postal",
        value: `Unter den Linden ${country}`,
        metadata: { name: "Ada Lovelace", street: "Unter den Linden 1", postalCode: "10117", city: "Berlin", country },
      });
      expect(res.status, country).toBe(200);
      expect(res.body.contactHandle.metadata).toMatchObject({ country: code, street: "Unter den Linden 1" });
    }
  });
});

describe("history", () => {
  test("a contact's messages are those from or to its email and a2a handles", async () => {
    const mine = await newOrg();
    const inbox = await newInbox(mine, "history");
    const c = await newContact(mine, { handles: [{ channel: "email", value: `Hist-${Date.now()}@Example.com` }] });
    const address = c.handles[0]?.value ?? "";
    const to = await call("POST", "/v1/messages", {
      key: mine.secret,
      body: { inboxId: inbox.id, to: address.toUpperCase(), subject: "One", text: "x" },
    });
    expect(to.status).toBe(200);
    await call("POST", "/v1/messages", {
      key: mine.secret,
      body: { inboxId: inbox.id, to: "someone-else@example.com", subject: "Two", text: "x" },
    });
    const cc = await call("POST", "/v1/messages", {
      key: mine.secret,
      body: { inboxId: inbox.id, to: "third@example.com", cc: address, subject: "Three", text: "x" },
    });
    const hist = await call("GET", `/v1/contacts/${c.id}/messages`, { key: mine.secret });
    expect(hist.status).toBe(200);
    expect(hist.body.messages.map((m: { id: string }) => m.id)).toEqual([cc.body.id, to.body.id]);
    const none = await newContact(mine, { handles: [] });
    expect((await call("GET", `/v1/contacts/${none.id}/messages`, { key: mine.secret })).body).toEqual({
      messages: [],
      pagination: { nextCursor: null, hasMore: false },
    });
  });

  test("messages are linked to their contact: inbound by the sender's handle, outbound by contactId", async () => {
    const mine = await newOrg();
    const theirs = await newOrg();
    const inbox = await newInbox(mine, "linked");
    const sender = await newInbox(theirs, "sender");
    const c = await newContact(mine, { handles: [{ channel: "email", value: sender.address.toUpperCase() }] });
    // Inbound from a known sender: linked in the receiving organization, not in the sender's.
    const sent = await call("POST", "/v1/messages", {
      key: theirs.secret,
      body: { inboxId: sender.id, to: inbox.address, subject: "From a contact", text: "x" },
    });
    expect(sent.status).toBe(200);
    const theirCopy = await call("GET", `/v1/messages/${sent.body.id}`, { key: theirs.secret });
    expect(theirCopy.body.message.contactId).toBeNull();
    const received = await call("GET", `/v1/messages?inboxId=${inbox.id}&direction=inbound`, { key: mine.secret });
    expect(
      received.body.messages.map((m: { subject: string; contactId: string | null }) => [m.subject, m.contactId]),
    ).toEqual([["From a contact", c.id]]);
    // An unknown sender stays unlinked.
    const stranger = await newInbox(theirs, "stranger");
    await call("POST", "/v1/messages", {
      key: theirs.secret,
      body: { inboxId: stranger.id, to: inbox.address, subject: "From a stranger", text: "x" },
    });
    const both = await call("GET", `/v1/messages?inboxId=${inbox.id}&direction=inbound`, { key: mine.secret });
    expect(
      both.body.messages.map((m: { subject: string; contactId: string | null }) => [m.subject, m.contactId]),
    ).toEqual([
      ["From a stranger", null],
      ["From a contact", c.id],
    ]);
    // Outbound: the contact the send named with contactId; a plain address names none.
    const out = await call("POST", "/v1/messages", {
      key: mine.secret,
      body: { inboxId: inbox.id, to: "cc-too@example.com", contactId: `contact:${c.id}`, subject: "Reply", text: "x" },
    });
    expect(out.body).toMatchObject({ id: expect.any(String) });
    expect((await call("GET", `/v1/messages/${out.body.id}`, { key: mine.secret })).body.message.contactId).toBe(c.id);
    const plain = await call("POST", "/v1/messages", {
      key: mine.secret,
      body: { inboxId: inbox.id, to: "nobody@example.com", subject: "Plain", text: "x" },
    });
    expect(
      (await call("GET", `/v1/messages/${plain.body.id}`, { key: mine.secret })).body.message.contactId,
    ).toBeNull();
  });
});
