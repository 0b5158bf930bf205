import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/messages";
import { listMessageEvents } from "@/lib/messages/read";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.listMessageEvents, ({ db, principal, params }) => listMessageEvents(db, principal, params.messageId)),
);
