"use server";

import { runAction } from "@/lib/console/action";
import {
  deleteInboxSchema,
  discardQuarantinedMessage,
  releaseQuarantinedMessage,
  setInboxSchema,
  testInboxSchema,
} from "@/lib/inbox-schemas/operations";
import { cancelVerificationWait } from "@/lib/waits/operations";

/** An inbox's verification waits, schema and quarantine in the console: each the operation the API runs. */

/** Ends a pending wait (`expired`, `verification.expired`), as `POST /v1/waits/{waitId}/cancel`. */
export async function cancelWaitAction(input: unknown) {
  return runAction(cancelVerificationWait, input);
}

/** Stores the inbox's extraction schema, as `PUT /v1/inboxes/{inboxId}/schema`. */
export async function setInboxSchemaAction(input: unknown) {
  return runAction(setInboxSchema, input);
}

/** Removes the inbox's extraction schema, as `DELETE /v1/inboxes/{inboxId}/schema`. */
export async function deleteInboxSchemaAction(input: unknown) {
  return runAction(deleteInboxSchema, input);
}

/** The test pane: the extraction a pasted message would get, as `POST /v1/inboxes/{inboxId}/schema/test`. */
export async function testInboxSchemaAction(input: unknown) {
  return runAction(testInboxSchema, input);
}

/** Delivers a quarantined message (`message.received`), as `POST /v1/messages/{messageId}/release`. */
export async function releaseMessageAction(input: unknown) {
  return runAction(releaseQuarantinedMessage, input, { then: (data) => ({ id: data.message.id }) });
}

/** Deletes a quarantined message, as `POST /v1/messages/{messageId}/discard`. */
export async function discardMessageAction(input: unknown) {
  return runAction(discardQuarantinedMessage, input);
}
