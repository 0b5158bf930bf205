import type { Role } from "@/db/schema";
import type { Permission } from "@/lib/auth/roles";

/** The role rules of the issue, as a table the roles test checks `can` against. */
export const ConsoleRolesMatrix: [Role, Permission, boolean][] = [
  ["member", "messages:read", true],
  ["member", "messages:send", true],
  ["member", "inboxes:read", true],
  ["member", "keys:read", false],
  ["member", "keys:write", false],
  ["member", "domains:write", false],
  ["member", "webhooks:write", false],
  ["member", "members:manage", false],
  ["member", "profile:write", true],
  ["admin", "keys:read", true],
  ["admin", "keys:write", true],
  ["admin", "domains:write", true],
  ["admin", "webhooks:write", true],
  ["admin", "members:manage", true],
  ["admin", "owners:manage", false],
  ["admin", "organization:delete", false],
  ["owner", "owners:manage", true],
  ["owner", "organization:delete", true],
];
