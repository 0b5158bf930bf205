import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/messages";
import { getOutboundEmail } from "@/lib/messages/read";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.getOutboundEmail, ({ db, principal, params }) => getOutboundEmail(db, principal, params.emailId)),
);
