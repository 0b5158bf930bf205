import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/messages";
import { batchDeleteMessages } from "@/lib/messages/read";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.batchDeleteMessages, ({ db, principal, body }) => batchDeleteMessages(db, principal, body.ids)),
);
