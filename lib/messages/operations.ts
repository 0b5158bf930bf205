import { defineOperation } from "@/lib/core/operation";
import { attachmentContent, attachmentDownloadUrl } from "./attachments";
import * as c from "./contracts";
import * as remove from "./delete";
import * as read from "./read";
import { replyInThread as reply } from "./reply";
import { cancelScheduledMessage, sendMessage as send } from "./send";
import * as threads from "./threads";

const dataPlane = { none: "data plane: the event ledger records sends and their outcomes" } as const;

export const sendMessage = defineOperation(
  c.sendMessage,
  ({ db, principal, body, idempotencyKey }) => send(db, principal, body, new Date(), idempotencyKey),
  { audit: dataPlane },
);
export const listMessages = defineOperation(c.listMessages, ({ db, principal, query }) =>
  read.listMessages(db, principal, query),
);
export const getMessage = defineOperation(c.getMessage, ({ db, principal, params }) =>
  read.getMessage(db, principal, params.messageId),
);
export const batchDeleteMessages = defineOperation(c.batchDeleteMessages, ({ db, principal, body }) =>
  remove.batchDeleteMessages(db, principal, body.messageIds),
);
export const listMessageEvents = defineOperation(c.listMessageEvents, ({ db, principal, params }) =>
  read.listMessageEvents(db, principal, params.messageId),
);
export const getOutboundEmail = defineOperation(c.getOutboundEmail, ({ db, principal, params }) =>
  read.getOutboundEmail(db, principal, params.emailId),
);
export const cancelOutboundEmail = defineOperation(c.cancelOutboundEmail, ({ db, principal, params }) =>
  cancelScheduledMessage(db, principal, params.emailId),
);
export const listThreads = defineOperation(c.listThreads, ({ db, principal, query }) =>
  threads.listThreads(db, principal, query),
);
export const getThread = defineOperation(c.getThread, ({ db, principal, params }) =>
  threads.getThread(db, principal, params.threadId),
);
export const getAttachment = defineOperation(c.getAttachment, ({ db, principal, params }) =>
  read.getAttachment(db, principal, params.attachmentId),
);
export const getAttachmentContent = defineOperation(c.getAttachmentContent, ({ db, principal, params }) =>
  attachmentContent(db, principal, params.attachmentId),
);
export const getAttachmentDownloadUrl = defineOperation(
  c.getAttachmentDownloadUrl,
  ({ db, principal, params, query }) =>
    attachmentDownloadUrl(db, principal, params.attachmentId, query.expiresInSeconds),
);

/** The console's reply box and the MCP tool `reply_in_thread`; not an HTTP path (senders use `POST /v1/messages` with `replyToMessageId`). */
export const replyInThread = defineOperation(
  c.replyInThread,
  ({ db, principal, params, body }) => reply(db, principal, params.threadId, body),
  {
    audit: dataPlane,
    surfaces: { http: false, mcp: true, cli: false },
  },
);
