"use server";

import { runAction } from "@/lib/console/action";
import {
  addContactHandle,
  createContact,
  deleteContact,
  deleteContactHandle,
  updateContact,
  updateContactHandle,
} from "@/lib/contacts/operations";

const labels = { displayName: "name", value: "handle" };

/** Creates a contact (`POST /v1/contacts`), with its first handles. */
export async function createContactAction(input: unknown) {
  return runAction(createContact, input, { labels, then: (data) => ({ id: data.contact.id }) });
}

/** Renames a contact, sets or clears its alias and info (`PATCH /v1/contacts/{contactRef}`). */
export async function updateContactAction(input: unknown) {
  return runAction(updateContact, input, { labels });
}

export async function deleteContactAction(input: unknown) {
  return runAction(deleteContact, input);
}

/** Adds a handle; `isPrimary` makes it the channel's primary one. */
export async function addHandleAction(input: unknown) {
  return runAction(addContactHandle, input, { labels });
}

/** Makes a handle its channel's primary one (or changes its label). */
export async function updateHandleAction(input: unknown) {
  return runAction(updateContactHandle, input, { labels });
}

export async function removeHandleAction(input: unknown) {
  return runAction(deleteContactHandle, input);
}
