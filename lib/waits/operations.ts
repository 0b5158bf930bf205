import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as waits from "./service";

export const registerVerificationWait = defineOperation(c.registerVerificationWait, ({ db, principal, params, body }) =>
  waits.registerWait(db, principal, params.inboxId, body),
);
export const getVerificationWait = defineOperation(c.getVerificationWait, ({ db, principal, params }) =>
  waits.getWait(db, principal, params.waitId),
);
export const listVerificationWaits = defineOperation(c.listVerificationWaits, ({ db, principal, params }) =>
  waits.listWaits(db, principal, params.inboxId),
);
export const cancelVerificationWait = defineOperation(c.cancelVerificationWait, ({ db, principal, params }) =>
  waits.cancelWait(db, principal, params.waitId),
);

/** The agent's "register and wait" (MCP tool `wait_for_code`); HTTP callers register and poll. */
export const waitForCode = defineOperation(
  c.waitForCode,
  ({ db, principal, params, body, signal }) => waits.waitForCode(db, principal, params.inboxId, body, signal),
  { surfaces: { http: false, mcp: true, cli: false } },
);
