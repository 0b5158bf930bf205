import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/inboxes";
import { createInbox, listInboxes } from "@/lib/inboxes/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.listInboxes, ({ db, principal }) => listInboxes(db, principal)),
  handle(c.createInbox, ({ db, principal, body }) => createInbox(db, principal, body)),
);
