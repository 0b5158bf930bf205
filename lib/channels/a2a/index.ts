import { invalidRequest } from "@/lib/core/errors";
import { defineChannel } from "../types";
import { a2aDefinition } from "./definition";

/**
 * Agent-to-agent: every recipient an inbox of this service, delivered in the send's own
 * transaction (nothing leaves the process), with a receipt id both sides share.
 */
export const a2a = defineChannel({
  ...a2aDefinition,
  validate(s) {
    const external = s.recipients.filter((a) => !s.internal.has(a));
    if (external.length > 0)
      throw invalidRequest(`a2a delivers only to inboxes of this service; ${external[0]} is not one.`, "channel");
    const unavailable = [...s.internal.values()].find((i) => i.status !== "active");
    if (unavailable)
      throw invalidRequest(`The inbox ${unavailable.address} is ${unavailable.status} and does not receive.`, "to");
    if (s.input.sendAt) throw invalidRequest("a2a messages are delivered at once; they cannot be scheduled.", "sendAt");
  },
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
  receive: null,
});
