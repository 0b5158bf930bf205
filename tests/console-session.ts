import type { Role } from "@/db/schema";
import { can, consolePrincipal } from "@/lib/auth/roles";
import type { Actor } from "@/lib/core/actor";
import { invoke } from "@/lib/core/invoke";
import type { TestOrg } from "./harness";

/**
 * A console session for server-action tests: a test file mocks `@/lib/console/context` with
 * `consoleContextMock` (`vi.mock("@/lib/console/context", () => import("./console-session").then((m) => m.consoleContextMock))`)
 * and `signIn` makes a test organization's user (in a role) the signed-in console user.
 */
const session: { current: unknown } = { current: null };

export const consoleContextMock = {
  getConsole: async () => session.current,
  requireUser: async () => session.current,
};

export function signIn(org: TestOrg, role: Role, ip = "203.0.113.9") {
  const principal = consolePrincipal({ orgId: org.orgId, userId: org.userId, role, ip });
  const actor: Actor = { type: "user", userId: org.userId, email: null, org: { id: org.orgId, role }, principal, ip };
  session.current = {
    user: { id: org.userId },
    org: { id: org.orgId, role },
    role,
    actor,
    principal,
    can: (p: Parameters<typeof can>[1]) => can(role, p),
    invoke: async (op: Parameters<typeof invoke>[0], input: Parameters<typeof invoke>[2]) =>
      (await invoke(op, actor, input ?? {})).data,
  };
  return principal;
}
