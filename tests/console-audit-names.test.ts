import { describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { auditNames } from "@/lib/audit/names";
import { call, newInbox, newKey, newOrg } from "./harness";

/** The audit log's names (lib/audit/names.ts): who and what by name, the organization's own rows only. */
describe("audit names", () => {
  test("a key's name, a member's email and an inbox's address; another organization's ids stay ids", async () => {
    const db = await getDb();
    const org = await newOrg();
    const other = await newOrg();
    const key = await newKey(org, { name: "Deploy bot", scopes: ["inboxes:write"] });
    const inbox = await newInbox({ ...org, secret: key.secret }, "named");
    const theirs = await newInbox(other, "theirs");
    const logs = await call("GET", "/v1/audit-logs?resourceType=inbox", { key: org.secret });
    expect(logs.status).toBe(200);
    const created = (logs.body.logs as { actor: string; resourceId: string }[]).find((l) => l.resourceId === inbox.id);
    expect(created?.actor).toBe(`api_key:${key.id}`);

    const refs = [
      { kind: "api_key", id: key.id },
      { kind: "inbox", id: inbox.id },
      { kind: "user", id: org.userId },
      { kind: "inbox", id: theirs.id },
      { kind: "user", id: other.userId },
      { kind: "api_key", id: other.apiKeyId },
      { kind: "inbox", id: "not-a-uuid" },
    ];
    const names = await auditNames(db, org.orgId, refs, { withKeys: true });
    expect(names.get(`api_key:${key.id}`)).toBe("Deploy bot");
    expect(names.get(`inbox:${inbox.id}`)).toBe(inbox.address);
    expect(names.get(`user:${org.userId}`)).toMatch(/@example\.test$/);
    expect(names.has(`inbox:${theirs.id}`)).toBe(false);
    expect(names.has(`user:${other.userId}`)).toBe(false);
    expect(names.has(`api_key:${other.apiKeyId}`)).toBe(false);

    // A role that may not read keys gets no key names.
    const withoutKeys = await auditNames(db, org.orgId, refs, { withKeys: false });
    expect(withoutKeys.has(`api_key:${key.id}`)).toBe(false);
    expect(withoutKeys.get(`inbox:${inbox.id}`)).toBe(inbox.address);
  }, 120_000);
});
