import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as quarantine from "./quarantine";
import * as schemas from "./service";

export const setInboxSchema = defineOperation(c.setInboxSchema, ({ db, principal, params, body }) =>
  schemas.setSchema(db, principal, params.inboxId, body),
);
export const getInboxSchema = defineOperation(c.getInboxSchema, ({ db, principal, params }) =>
  schemas.getSchema(db, principal, params.inboxId),
);
export const deleteInboxSchema = defineOperation(c.deleteInboxSchema, ({ db, principal, params }) =>
  schemas.deleteSchema(db, principal, params.inboxId),
);
export const testInboxSchema = defineOperation(
  c.testInboxSchema,
  ({ db, principal, params, body }) => schemas.testSchema(db, principal, params.inboxId, body),
  { audit: { none: "a test extraction stores and changes nothing" } },
);
export const releaseQuarantinedMessage = defineOperation(c.releaseQuarantinedMessage, ({ db, principal, params }) =>
  quarantine.releaseMessage(db, principal, params.messageId),
);
export const discardQuarantinedMessage = defineOperation(c.discardQuarantinedMessage, ({ db, principal, params }) =>
  quarantine.discardMessage(db, principal, params.messageId),
);
