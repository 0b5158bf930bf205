import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/messages";
import { attachmentDownloadUrl } from "@/lib/messages/attachments";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.getAttachmentDownloadUrl, ({ db, principal, params, query }) => attachmentDownloadUrl(db, principal, params.attachmentId, query.expiresInSeconds)),
);
