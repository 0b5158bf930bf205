import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as create from "./create";
import * as remove from "./delete";
import * as handles from "./handle-changes";
import * as read from "./read";
import * as update from "./update";

export const listContacts = defineOperation(c.listContacts, ({ db, principal, query }) =>
  read.listContacts(db, principal, query),
);
export const createContact = defineOperation(c.createContact, ({ db, principal, body }) =>
  create.createContact(db, principal, body),
);
export const getContact = defineOperation(c.getContact, ({ db, principal, params }) =>
  read.getContact(db, principal, params.contactRef),
);
export const updateContact = defineOperation(c.updateContact, ({ db, principal, params, body }) =>
  update.updateContact(db, principal, params.contactRef, body),
);
export const deleteContact = defineOperation(c.deleteContact, ({ db, principal, params }) =>
  remove.deleteContact(db, principal, params.contactRef),
);
export const addContactHandle = defineOperation(c.addContactHandle, ({ db, principal, params, body }) =>
  handles.addContactHandle(db, principal, params.contactRef, body),
);
export const updateContactHandle = defineOperation(c.updateContactHandle, ({ db, principal, params, body }) =>
  handles.updateContactHandle(db, principal, params.contactRef, params.handleId, body),
);
export const deleteContactHandle = defineOperation(c.deleteContactHandle, ({ db, principal, params }) =>
  handles.deleteContactHandle(db, principal, params.contactRef, params.handleId),
);
export const listContactMessages = defineOperation(c.listContactMessages, ({ db, principal, params, query }) =>
  read.listContactMessages(db, principal, params.contactRef, query),
);
