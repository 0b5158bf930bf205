import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/messages";
import { attachmentContent } from "@/lib/messages/attachments";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.getAttachmentContent, ({ db, principal, params }) => attachmentContent(db, principal, params.attachmentId)),
);
