import { beforeAll, describe, expect, test } from "vitest";
import type { Role } from "@/db/schema";
import { consolePrincipal, roleScopes } from "@/lib/auth/roles";
import type { Scope } from "@/lib/auth/scopes";
import type { Actor } from "@/lib/core/actor";
import { invoke } from "@/lib/core/invoke";
import type { AnyOperation } from "@/lib/core/operation";
import { OPERATIONS } from "@/lib/registry";
import { newOrg, type TestOrg } from "./harness";
import { paramNames, RESOURCE_FACTORIES } from "./resources";

/**
 * The server-action surface of the generated security suite. Console server actions and pages call
 * `invoke` with the signed-in user's actor (`runAction` → `ctx.invoke`, lib/console/action.ts), so
 * every operation that acts in an organization is checked here for that actor, without per-action
 * code: a user of another organization gets 404 for this organization's ids (owner role, so it is
 * the organization and not the role that refuses), and a role without the operation's permission
 * gets 403 `scope_missing`. HTTP is tests/security.test.ts, MCP tests/security-mcp.test.ts.
 */
const orgScoped = OPERATIONS.filter(
  (op) => op.contract.status === "live" && op.contract.access !== "public" && op.contract.access !== "session",
);

const userActor = (org: TestOrg, role: Role): Actor => ({
  type: "user",
  userId: org.userId,
  email: null,
  org: { id: org.orgId, role },
  principal: consolePrincipal({ orgId: org.orgId, userId: org.userId, role }),
  ip: null,
});

let owner: TestOrg;
let stranger: TestOrg;
const ids = new Map<string, string>();
beforeAll(async () => {
  owner = await newOrg();
  stranger = await newOrg();
}, 120_000);

/** One resource of the owner's per kind of path parameter (the strangers only read or are refused). */
async function paramsFor(op: AnyOperation): Promise<Record<string, string>> {
  const params: Record<string, string> = {};
  for (const name of paramNames(op.contract.path)) {
    if (!ids.has(name)) {
      const factory = RESOURCE_FACTORIES[name];
      if (!factory)
        throw new Error(`No resource factory for path parameter "${name}" (${op.id}); add one to tests/resources.ts.`);
      ids.set(name, await factory(owner));
    }
    params[name] = ids.get(name) ?? "";
  }
  return params;
}

const inputFor = async (op: AnyOperation) => ({
  params: await paramsFor(op),
  body: op.contract.body ? op.contract.example : undefined,
});

test("the registry has organization operations with ids to check", () => {
  expect(orgScoped.filter((op) => paramNames(op.contract.path).length > 0).length).toBeGreaterThan(20);
});

describe.each(orgScoped.filter((op) => paramNames(op.contract.path).length > 0).map((op) => [op.id, op] as const))(
  "%s as a user",
  (_id, op) => {
    test("of another organization → 404, nothing of the resource", async () => {
      const refusal = await invoke(op, userActor(stranger, "owner"), await inputFor(op)).then(
        () => null,
        (err: unknown) => err,
      );
      expect(refusal).toMatchObject({ status: 404, code: "resource_not_found" });
    });
  },
);

const memberLacks = orgScoped.filter(
  (op) => op.contract.access !== "key" && !roleScopes("member").has(op.contract.access as Scope),
);

describe.each(memberLacks.map((op) => [op.id, op] as const))("%s as a member", (_id, op) => {
  test("whose role lacks the permission → 403 scope_missing", async () => {
    const refusal = await invoke(op, userActor(owner, "member"), await inputFor(op)).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refusal).toMatchObject({ status: 403, code: "scope_missing" });
  });
});
