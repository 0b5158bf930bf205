import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as contacts from "./service";

export const listContacts = defineOperation(c.listContacts, ({ db, principal, query }) => contacts.listContacts(db, principal, query));
export const createContact = defineOperation(c.createContact, ({ db, principal, body }) => contacts.createContact(db, principal, body));
export const getContact = defineOperation(c.getContact, ({ db, principal, params }) => contacts.getContact(db, principal, params.contactRef));
export const updateContact = defineOperation(c.updateContact, ({ db, principal, params, body }) => contacts.updateContact(db, principal, params.contactRef, body));
export const deleteContact = defineOperation(c.deleteContact, ({ db, principal, params }) => contacts.deleteContact(db, principal, params.contactRef));
export const addContactHandle = defineOperation(c.addContactHandle, ({ db, principal, params, body }) => contacts.addContactHandle(db, principal, params.contactRef, body));
export const updateContactHandle = defineOperation(c.updateContactHandle, ({ db, principal, params, body }) =>
  contacts.updateContactHandle(db, principal, params.contactRef, params.handleId, body),
);
export const deleteContactHandle = defineOperation(c.deleteContactHandle, ({ db, principal, params }) =>
  contacts.deleteContactHandle(db, principal, params.contactRef, params.handleId),
);
export const listContactMessages = defineOperation(c.listContactMessages, ({ db, principal, params, query }) => contacts.listContactMessages(db, principal, params.contactRef, query));
