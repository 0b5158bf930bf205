import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as inboxes from "./service";

export const listInboxes = defineOperation(c.listInboxes, ({ db, principal }) => inboxes.listInboxes(db, principal));
export const createInbox = defineOperation(c.createInbox, ({ db, principal, body }) =>
  inboxes.createInbox(db, principal, body),
);
export const getInbox = defineOperation(c.getInbox, ({ db, principal, params }) =>
  inboxes.getInbox(db, principal, params.inboxId),
);
export const updateInbox = defineOperation(c.updateInbox, ({ db, principal, params, body }) =>
  inboxes.updateInbox(db, principal, params.inboxId, body),
);
export const deleteInbox = defineOperation(c.deleteInbox, ({ db, principal, params }) =>
  inboxes.deleteInbox(db, principal, params.inboxId),
);
