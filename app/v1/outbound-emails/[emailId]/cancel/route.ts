import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/messages";
import { cancelScheduledMessage } from "@/lib/messages/send";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.cancelOutboundEmail, ({ db, principal, params }) => cancelScheduledMessage(db, principal, params.emailId)),
);
