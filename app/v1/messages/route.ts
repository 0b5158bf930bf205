import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/messages";
import { listMessages } from "@/lib/messages/read";
import { sendMessage } from "@/lib/messages/send";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.listMessages, ({ db, principal, query }) => listMessages(db, principal, query)),
  handle(c.sendMessage, ({ db, principal, body }) => sendMessage(db, principal, body)),
);
