import { invalidRequest } from "@/lib/core/errors";
import { mailAddress, mailMessageKey, mailThreadOptions } from "../email";
import { mailboxUnavailable, mailOutcomeMetadata } from "../email/outcomes";
import { defineChannel } from "../port";
import { a2aDefinition } from "./definition";

/**
 * Agent-to-agent: every recipient an inbox of this service, delivered in the send's own
 * transaction (nothing leaves the process), with a receipt id both sides share. Its messages are
 * mail-shaped (addresses, Message-IDs), so it shares email's addressing and threading.
 */
export const a2a = defineChannel({
  ...a2aDefinition,
  address: mailAddress,
  validate(s) {
    const external = s.recipients.filter((a) => !s.internal.has(a));
    if (external.length > 0)
      throw invalidRequest(`a2a delivers only to inboxes of this service; ${external[0]} is not one.`, "channel");
    const unavailable = [...s.internal.values()].find((i) => i.status !== "active");
    if (unavailable)
      throw invalidRequest(`The inbox ${unavailable.address} is ${unavailable.status} and does not receive.`, "to");
    if (s.scheduled) throw invalidRequest("a2a messages are delivered at once; they cannot be scheduled.", "sendAt");
  },
  messageKey: mailMessageKey,
  threadOptions: mailThreadOptions,
  compose: () => Promise.reject(new Error("a2a has no external recipients")),
  deliver: null,
  // Every recipient an inbox of this service: a2a before email.
  byDefault: { rank: 10, takes: (s) => s.recipients.every((r) => s.internal.has(r)) },
  outboundMetadata: ({ receiptId, provenance, provenanceVerified }) => ({
    receiptId,
    provenance,
    provenanceVerified: provenance !== null && provenanceVerified,
  }),
  copyMetadata: ({ receiptId, senderInboxId, provenance, provenanceVerified }) => ({
    receiptId,
    provenance,
    provenanceVerified: provenance !== null && provenanceVerified,
    senderInboxId,
  }),
  outcomeMetadata: mailOutcomeMetadata,
  // A paused or deleted inbox bounces a2a like mail (the same events and details).
  unavailable: mailboxUnavailable,
  providers: [],
  providerEvent: null,
  // Nothing arrives from outside: an a2a message is stored in its recipients' inboxes by the send.
  receive: null,
});
