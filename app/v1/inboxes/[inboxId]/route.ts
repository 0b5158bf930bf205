import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/inboxes";
import { deleteInbox, getInbox, updateInbox } from "@/lib/inboxes/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.getInbox, ({ db, principal, params }) => getInbox(db, principal, params.inboxId)),
  handle(c.updateInbox, ({ db, principal, params, body }) => updateInbox(db, principal, params.inboxId, body)),
  handle(c.deleteInbox, ({ db, principal, params }) => deleteInbox(db, principal, params.inboxId)),
);
