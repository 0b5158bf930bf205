import { and, eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { domains } from "@/db/schema";
import { SYSTEM_ACTOR } from "@/lib/core/audit";
import { env } from "@/lib/env";
import { bootstrap } from "@/lib/organizations/bootstrap";
import {
  addMember,
  changeMemberRole,
  findOrCreateUser,
  listOrganizationsForUser,
  removeMember,
  roleOf,
} from "@/lib/organizations/service";
import { call, newOrg } from "./harness";

const who = SYSTEM_ACTOR("test");

test("every organization has the shared domain, verified and read-only", async () => {
  const org = await newOrg();
  const db = await getDb();
  const rows = await db.select().from(domains).where(eq(domains.orgId, org.orgId));
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ name: env.SHARED_DOMAIN, status: "verified", isShared: true });
  expect(rows[0]?.verifiedAt).toBeInstanceOf(Date);
});

test("bootstrap is idempotent per email: same user and organization, a new key each time", async () => {
  const db = await getDb();
  const email = `Boot-${Date.now()}@Example.test`;
  const a = await bootstrap(db, { email, orgName: "Boot" });
  const b = await bootstrap(db, { email: email.toLowerCase(), orgName: "Boot" });
  expect(b.user.id).toBe(a.user.id);
  expect(b.user.created).toBe(false);
  expect(b.organization.id).toBe(a.organization.id);
  expect(b.apiKey.id).not.toBe(a.apiKey.id);
  expect(b.secret).not.toBe(a.secret);
  expect((await call("GET", "/v1/whoami", { key: a.secret })).status).toBe(200);
  expect((await call("GET", "/v1/whoami", { key: b.secret })).body.userId).toBe(a.user.id);
});

test("roles: the last owner can be neither demoted nor removed", async () => {
  const org = await newOrg();
  const db = await getDb();
  const other = await findOrCreateUser(db, `m-${Date.now()}@example.test`);
  await db.transaction((tx) => addMember(tx, org.orgId, other.id, "member", who));
  expect(await roleOf(db, org.orgId, other.id)).toBe("member");

  await expect(db.transaction((tx) => changeMemberRole(tx, org.orgId, org.userId, "admin", who))).rejects.toMatchObject(
    { code: "not_permitted" },
  );
  await expect(db.transaction((tx) => removeMember(tx, org.orgId, org.userId, who))).rejects.toMatchObject({
    code: "not_permitted",
  });

  await db.transaction((tx) => changeMemberRole(tx, org.orgId, other.id, "owner", who));
  await db.transaction((tx) => changeMemberRole(tx, org.orgId, org.userId, "admin", who));
  expect(await roleOf(db, org.orgId, org.userId)).toBe("admin");
  await db.transaction((tx) => removeMember(tx, org.orgId, org.userId, who));
  expect(await roleOf(db, org.orgId, org.userId)).toBeNull();
  await expect(db.transaction((tx) => removeMember(tx, org.orgId, other.id, who))).rejects.toMatchObject({
    code: "not_permitted",
  });

  const orgs = await listOrganizationsForUser(db, other.id);
  expect(orgs).toEqual([expect.objectContaining({ id: org.orgId, role: "owner" })]);
  const audit = await call("GET", "/v1/audit-logs?resourceType=user", { key: org.secret });
  expect(audit.body.logs.map((l: { action: string }) => l.action)).toEqual([
    "member.removed",
    "member.role_changed",
    "member.role_changed",
    "member.added",
  ]);
});

test("organizations are isolated: ids of another organization are 404", async () => {
  const a = await newOrg();
  const b = await newOrg();
  const keys = await call("GET", "/v1/api-keys", { key: a.secret });
  const id = keys.body.apiKeys[0].id;
  expect((await call("GET", `/v1/api-keys/${id}`, { key: b.secret })).status).toBe(404);
  expect(
    (await call("GET", "/v1/api-keys", { key: b.secret })).body.apiKeys.map((k: { id: string }) => k.id),
  ).not.toContain(id);
  const db = await getDb();
  const shared = await db
    .select()
    .from(domains)
    .where(and(eq(domains.orgId, b.orgId), eq(domains.isShared, true)));
  expect(shared).toHaveLength(1);
});
