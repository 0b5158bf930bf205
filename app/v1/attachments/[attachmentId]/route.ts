import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/messages";
import { getAttachment } from "@/lib/messages/read";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.getAttachment, ({ db, principal, params }) => getAttachment(db, principal, params.attachmentId)),
);
