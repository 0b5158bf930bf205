import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import { setPassword as setUserPassword } from "./users";
import { whoami } from "./whoami";

export const getWhoami = defineOperation(c.getWhoami, ({ db, principal }) => whoami(db, principal));

/** Console only: the signed-in user's own password (no organization, so no audit row). */
export const setPassword = defineOperation(
  c.setPassword,
  ({ db, principal, body }) => setUserPassword(db, principal.userId, body),
  {
    audit: { none: "a user's own credentials belong to no organization's audit log" },
    surfaces: { http: false, mcp: false, cli: false },
  },
);
