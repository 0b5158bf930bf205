import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { simpleParser } from "mailparser";
import type { PgColumn } from "drizzle-orm/pg-core";
import { NextRequest } from "next/server";
import { beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { HTTP_CONTRACTS as CONTRACTS } from "@/lib/registry";
import { ConsoleRolesMatrix } from "./console-roles";
import { env, publicBaseUrl } from "@/lib/env";
import { registerUser, setPassword, verifyCredentials } from "@/lib/account/users";
import { safeNext } from "@/lib/console/redirects";
import { can } from "@/lib/auth/roles";
import { acceptInvitation } from "@/lib/organizations/invitations";
import { call, newOrg, sessionCookie, type TestOrg } from "./harness";

const ORIGIN = "http://localhost";
const asUser = (cookie: string, body?: unknown) => ({ headers: { cookie, origin: ORIGIN }, body });

/** The newest outbox email to `to` (the embedded transport writes one .eml per send). */
async function lastEmailTo(to: string) {
  const files = fs.existsSync(env.OUTBOX_DIR)
    ? fs.readdirSync(env.OUTBOX_DIR).map((f) => path.join(env.OUTBOX_DIR, f))
    : [];
  const matches = [];
  for (const file of files) {
    const raw = fs.readFileSync(file);
    if (raw.includes(to)) matches.push({ raw, mtime: fs.statSync(file).mtimeMs });
  }
  matches.sort((a, b) => b.mtime - a.mtime);
  const latest = matches[0];
  if (!latest) throw new Error(`no outbox email to ${to}`);
  return { raw: latest.raw, parsed: await simpleParser(latest.raw) };
}

const linkIn = (text: string, pattern: RegExp) => {
  const m = text.match(pattern);
  if (!m) throw new Error(`no link matching ${pattern} in: ${text.slice(0, 300)}`);
  return m[0];
};

describe("session operations: generated security checks", () => {
  const sessionOps = CONTRACTS.filter((c) => c.access === "session");
  let owner: TestOrg;
  let strangerCookie: string;

  beforeAll(async () => {
    owner = await newOrg();
    const stranger = await newOrg();
    strangerCookie = await sessionCookie(stranger.userId, "stranger@example.test");
  });

  test("there are session operations", () => expect(sessionOps.length).toBeGreaterThanOrEqual(6));

  describe.each(sessionOps.map((c) => [`${c.method} ${c.path}`, c] as const))("%s", (_n, c) => {
    const url = () => c.path.replace("{orgId}", owner.orgId).replace("{userId}", owner.userId);
    const body = c.body ? c.example : undefined;

    test("no session → 401 session_required", async () => {
      const res = await call(c.method, url(), { body });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ type: "authentication_error", code: "session_required" });
    });

    test("an API key is not a session → 401", async () => {
      const res = await call(c.method, url(), { key: owner.secret, body });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("session_required");
    });

    test("a forged session cookie → 401", async () => {
      const res = await call(c.method, url(), asUser(`authjs.session-token=${randomUUID()}`, body));
      expect(res.status).toBe(401);
    });

    test.skipIf(!c.path.includes("{orgId}"))("another organization's id → 404", async () => {
      const res = await call(c.method, url(), asUser(strangerCookie, body));
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("resource_not_found");
    });

    test.skipIf(c.method === "GET")("a cross-origin change → 403", async () => {
      const cookie = await sessionCookie(owner.userId, "owner@example.test");
      for (const origin of ["https://evil.example", "null"]) {
        const res = await call(c.method, url(), { headers: { cookie, origin }, body });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("not_permitted");
      }
    });
  });
});

describe("organizations, members and invitations over /v1", () => {
  test("create, invite by email, accept, roles and the last-owner rule", async () => {
    const db = await getDb();
    const ownerEmail = `owner-${randomUUID().slice(0, 8)}@example.test`;
    const owner = await registerUser(db, { email: ownerEmail, password: "correct horse battery" });
    const ownerCookie = await sessionCookie(owner.id, ownerEmail);

    const created = await call("POST", "/v1/organizations", asUser(ownerCookie, { name: "Acme Console" }));
    expect(created.status).toBe(201);
    expect(created.body.organization).toMatchObject({ name: "Acme Console", role: "owner" });
    const orgId = created.body.organization.id as string;
    const listed = await call("GET", "/v1/organizations", asUser(ownerCookie));
    expect(listed.body.organizations.map((o: { id: string }) => o.id)).toContain(orgId);

    const bad = await call(
      "POST",
      `/v1/organizations/${orgId}/invitations`,
      asUser(ownerCookie, { email: "not-an-email", role: "member" }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("email");

    const memberEmail = `member-${randomUUID().slice(0, 8)}@example.test`;
    const invited = await call(
      "POST",
      `/v1/organizations/${orgId}/invitations`,
      asUser(ownerCookie, { email: memberEmail.toUpperCase(), role: "member" }),
    );
    expect(invited.status).toBe(201);
    expect(invited.body.invitation).toMatchObject({ email: memberEmail, role: "member", status: "pending" });

    // The invitation is a real, DKIM-signed email in the outbox with an accept link.
    const mail = await lastEmailTo(memberEmail);
    expect(mail.raw.toString()).toContain("DKIM-Signature:");
    expect(mail.parsed.subject).toContain("Acme Console");
    const link = linkIn(mail.parsed.text ?? "", /https?:\/\/\S+\/invitations\/[A-Za-z0-9_-]+/);
    const token = link.split("/invitations/")[1] ?? "";

    const member = await registerUser(db, { email: memberEmail, password: "another long password" });
    const intruder = await registerUser(db, {
      email: `x-${randomUUID().slice(0, 8)}@example.test`,
      password: "yet another password",
    });
    await expect(acceptInvitation(db, token, intruder)).rejects.toMatchObject({ code: "not_permitted" });
    const [a, b] = await Promise.all([acceptInvitation(db, token, member), acceptInvitation(db, token, member)]);
    expect(a.orgId).toBe(orgId);
    expect(b.orgId).toBe(orgId);
    await expect(acceptInvitation(db, token, intruder)).rejects.toMatchObject({ code: "conflict" });

    const memberCookie = await sessionCookie(member.id, memberEmail);
    const members = await call("GET", `/v1/organizations/${orgId}/members`, asUser(memberCookie));
    expect(members.status).toBe(200);
    expect(members.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [ownerEmail, "owner"],
      [memberEmail, "member"],
    ]);
    expect(members.body.invitations).toEqual([]);

    // A member can neither invite nor change roles.
    const memberInvites = await call(
      "POST",
      `/v1/organizations/${orgId}/invitations`,
      asUser(memberCookie, { email: "z@example.test" }),
    );
    expect(memberInvites.status).toBe(403);
    const selfPromote = await call(
      "PATCH",
      `/v1/organizations/${orgId}/members/${member.id}`,
      asUser(memberCookie, { role: "admin" }),
    );
    expect(selfPromote.status).toBe(403);

    // An admin manages members but cannot grant owner or remove the owner.
    expect(
      (await call("PATCH", `/v1/organizations/${orgId}/members/${member.id}`, asUser(ownerCookie, { role: "admin" })))
        .body.member.role,
    ).toBe("admin");
    const grantOwner = await call(
      "PATCH",
      `/v1/organizations/${orgId}/members/${member.id}`,
      asUser(memberCookie, { role: "owner" }),
    );
    expect(grantOwner.status).toBe(403);
    const removeOwner = await call("DELETE", `/v1/organizations/${orgId}/members/${owner.id}`, asUser(memberCookie));
    expect(removeOwner.status).toBe(403);

    // The last owner can be neither demoted nor removed, even by themselves.
    const demote = await call(
      "PATCH",
      `/v1/organizations/${orgId}/members/${owner.id}`,
      asUser(ownerCookie, { role: "admin" }),
    );
    expect(demote.status).toBe(403);
    expect(demote.body.error.param).toBe("role");
    const leave = await call("DELETE", `/v1/organizations/${orgId}/members/${owner.id}`, asUser(ownerCookie));
    expect(leave.status).toBe(403);

    const removed = await call("DELETE", `/v1/organizations/${orgId}/members/${member.id}`, asUser(ownerCookie));
    expect(removed.body).toEqual({ deleted: true, userId: member.id });
    expect((await call("GET", `/v1/organizations/${orgId}/members`, asUser(memberCookie))).status).toBe(404);

    const dup = await call(
      "POST",
      `/v1/organizations/${orgId}/invitations`,
      asUser(ownerCookie, { email: ownerEmail }),
    );
    expect(dup.status).toBe(409);
  });
});

describe("console accounts", () => {
  test("after sign-in only same-site paths are followed", () => {
    expect(safeNext("/threads?inboxId=1")).toBe("/threads?inboxId=1");
    for (const bad of [
      "//evil.example",
      "/\\evil.example",
      "https://evil.example",
      ["/a", "/b"],
      undefined,
      "/x\nLocation: y",
    ])
      expect(safeNext(bad)).toBe("/");
  });

  // Issue 10 #8: these were a 500 on the sign-in page (an invalid Location header) or an open redirect.
  test.each<[unknown, string]>([
    ["/", "/"],
    ["/threads?inboxId=1", "/threads?inboxId=1"],
    ["/inboxes/abc#top", "/inboxes/abc#top"],
    ["/a/../b", "/b"],
    ["/caf%C3%A9?q=%E3%80%82", "/caf%C3%A9?q=%E3%80%82"],
    ["/x?next=https://evil.example", "/x?next=https://evil.example"],
    ["/\v", "/"],
    ["/\x0b", "/"],
    ["/\x0c", "/"],
    ["/\x00", "/"],
    ["/a\x00b", "/"],
    ["/\x7f", "/"],
    ["/ a", "/"],
    ["/\t/evil.example", "/"],
    ["/\r\nSet-Cookie: a=b", "/"],
    ["/\u3002evil.example", "/"],
    ["//evil\u3002example", "/"],
    ["/\u202eexample", "/"],
    ["/\u200b", "/"],
    ["/caf\u00e9", "/"],
    ["/.//evil.example", "/"],
    ["/..//evil.example", "/"],
    ["/%2F/evil.example", "/%2F/evil.example"],
    ["///evil.example", "/"],
    ["/\\/evil.example", "/"],
    ["\\/evil.example", "/"],
    ["javascript:alert(1)", "/"],
    ["http:/evil.example", "/"],
    ["evil.example", "/"],
    ["", "/"],
    ["/" + "a".repeat(3000), "/"],
    [null, "/"],
    [42, "/"],
    [{ toString: () => "/x" }, "/"],
  ])("safeNext(%j) is %j", (input, expected) => {
    const out = safeNext(input);
    expect(out).toBe(expected);
    // Whatever comes out is a valid header value and stays on this origin.
    expect(() => new Headers({ Location: out })).not.toThrow();
    expect(new URL(out, "http://console.test").origin).toBe("http://console.test");
  });

  test("passwords are Argon2id hashes; wrong passwords and unknown users fail alike", async () => {
    const db = await getDb();
    const email = `pw-${randomUUID().slice(0, 8)}@Example.test`;
    const user = await registerUser(db, { email, password: "a sufficiently long one" });
    const { users } = await import("@/db/schema");
    const { eq } = await import("drizzle-orm");
    const [row] = await db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, user.id));
    expect(row?.hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyCredentials(db, email.toLowerCase(), "a sufficiently long one")).toMatchObject({ id: user.id });
    expect(await verifyCredentials(db, email, "wrong password!!")).toBeNull();
    expect(await verifyCredentials(db, "nobody@example.test", "whatever long")).toBeNull();
    await expect(registerUser(db, { email, password: "another long password" })).rejects.toMatchObject({
      code: "conflict",
      param: "email",
    });

    // Changing it needs the current one.
    await expect(setPassword(db, user.id, { newPassword: "brand new password" })).rejects.toMatchObject({
      code: "invalid_request",
      param: "currentPassword",
    });
    await expect(
      setPassword(db, user.id, { currentPassword: "wrong one!!", newPassword: "brand new password" }),
    ).rejects.toMatchObject({ param: "currentPassword" });
    await setPassword(db, user.id, { currentPassword: "a sufficiently long one", newPassword: "brand new password" });
    expect(await verifyCredentials(db, email, "brand new password")).toMatchObject({ id: user.id });
    expect(await verifyCredentials(db, email, "a sufficiently long one")).toBeNull();
  });

  test("roles: member reads and sends; admin manages; only owner deletes the organization", () => {
    expect(ConsoleRolesMatrix.map(([role, perm]) => [role, perm, can(role, perm)])).toEqual(ConsoleRolesMatrix);
  });
});

describe("Auth.js end to end (in process): magic link through the outbox", () => {
  /** Requests an email link as a browser would (CSRF token and cookie first) and returns the link. */
  async function requestLink(email: string, extraHeaders: Record<string, string> = {}) {
    const { handlers } = await import("@/lib/console/auth");
    const base = "http://localhost:3999";
    const jar = new Map<string, string>();
    const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const remember = (res: Response) => {
      for (const c of res.headers.getSetCookie()) {
        const [pair = ""] = c.split(";");
        const i = pair.indexOf("=");
        jar.set(pair.slice(0, i), pair.slice(i + 1));
      }
    };
    const csrfRes = await handlers.GET(new NextRequest(`${base}/api/auth/csrf`));
    remember(csrfRes);
    const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
    const signin = await handlers.POST(
      new NextRequest(`${base}/api/auth/signin/email`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: cookieHeader(),
          origin: base,
          ...extraHeaders,
        },
        body: new URLSearchParams({ email, csrfToken, callbackUrl: `${base}/` }).toString(),
      }),
    );
    expect(signin.status).toBe(302);
    expect(signin.headers.get("location")).toContain("/api/auth/verify-request");
    const mail = await lastEmailTo(email);
    const link = linkIn(mail.parsed.text ?? "", /https?:\/\/[^\s/]+\/api\/auth\/callback\/email\?\S+/);
    const follow = async () => {
      const callback = await handlers.GET(new NextRequest(link, { headers: { cookie: cookieHeader() } }));
      remember(callback);
      return callback;
    };
    return { link, follow, cookieHeader, jar, handlers };
  }

  test("request a link, follow it, and the session works against /v1/organizations", async () => {
    const email = `magic-${randomUUID().slice(0, 8)}@example.test`;
    const { link, follow, cookieHeader, jar, handlers } = await requestLink(email);
    expect(new URL(link).origin).toBe(publicBaseUrl());
    const callback = await follow();
    expect(callback.status).toBe(302);
    expect(jar.get("authjs.session-token")).toBeTruthy();

    // The link works once.
    const again = await handlers.GET(new NextRequest(link, { headers: { cookie: "" } }));
    expect(again.headers.get("location")).toContain("error=Verification");

    const orgs = await call("GET", "/v1/organizations", { headers: { cookie: cookieHeader() } });
    expect(orgs.status).toBe(200);
    expect(orgs.body.organizations).toEqual([]);
    const created = await call("POST", "/v1/organizations", {
      headers: { cookie: cookieHeader(), origin: "http://localhost" },
      body: { name: "Magic" },
    });
    expect(created.status).toBe(201);
  });

  test("a forged Host cannot point the emailed link at another site", async () => {
    const email = `host-${randomUUID().slice(0, 8)}@example.test`;
    const { link } = await requestLink(email, { "x-forwarded-host": "evil.example", host: "evil.example" });
    expect(new URL(link).origin).toBe(publicBaseUrl());
  });

  test("someone who signed up with another person's address loses the password when the owner uses an email link", async () => {
    const db = await getDb();
    const email = `claimed-${randomUUID().slice(0, 8)}@example.test`;
    await registerUser(db, { email, password: "squatter password 1" });
    expect(await verifyCredentials(db, email, "squatter password 1")).not.toBeNull();
    const { follow } = await requestLink(email);
    expect((await follow()).status).toBe(302);
    expect(await verifyCredentials(db, email, "squatter password 1")).toBeNull();
  });
});

describe("deleting an organization", () => {
  test("owner only, name confirmed, and every row of the organization goes", async () => {
    const { deleteOrganization } = await import("@/lib/organizations/console");
    const { addMember } = await import("@/lib/organizations/service");
    const schema = await import("@/db/schema");
    const { eq, getTableColumns, is, count } = await import("drizzle-orm");
    const { PgTable } = await import("drizzle-orm/pg-core");
    const db = await getDb();
    const org = await newOrg();
    const inbox = await call("POST", "/v1/inboxes", {
      key: org.secret,
      body: { address: `del-${randomUUID().slice(0, 8)}@${env.SHARED_DOMAIN}` },
    });
    const sent = await call("POST", "/v1/messages", {
      key: org.secret,
      body: {
        inboxId: inbox.body.inbox.id,
        to: "someone@example.com",
        text: "bye",
        attachments: [{ filename: "a.txt", contentBase64: "aGk=" }],
      },
    });
    expect(sent.status).toBe(200);
    const admin = await registerUser(db, {
      email: `adm-${randomUUID().slice(0, 8)}@example.test`,
      password: "admin password 123",
    });
    await addMember(db, org.orgId, admin.id, "admin", { actor: "system:test", ip: null });
    const owner = { userId: org.userId, email: null, actor: `user:${org.userId}`, ip: null };

    await expect(
      deleteOrganization(
        db,
        { userId: admin.id, email: admin.email, actor: `user:${admin.id}`, ip: null },
        org.orgId,
        "x",
      ),
    ).rejects.toMatchObject({ code: "not_permitted" });
    await expect(deleteOrganization(db, owner, org.orgId, "wrong name")).rejects.toMatchObject({
      code: "invalid_request",
      param: "confirm",
    });
    const [{ name } = { name: "" }] = await db
      .select({ name: schema.organizations.name })
      .from(schema.organizations)
      .where(eq(schema.organizations.id, org.orgId));
    await deleteOrganization(db, owner, org.orgId, name);

    for (const table of Object.values(schema)) {
      if (!is(table, PgTable)) continue;
      const column = (getTableColumns(table) as Record<string, PgColumn | undefined>).orgId;
      if (!column) continue;
      const [row] = await db.select({ n: count() }).from(table).where(eq(column, org.orgId));
      expect(row?.n, `rows left in a table with org_id`).toBe(0);
    }
    const whoami = await call("GET", "/v1/whoami", { key: org.secret });
    expect(whoami.status).toBe(401);
  });
});
