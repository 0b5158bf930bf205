import { defineOperation } from "@/lib/core/operation";
import { receiveProviderEvent as receive } from "@/lib/messages/provider-events";
import * as c from "./contracts";

/** Provider callbacks (public: the provider's own signature is the credential). */
export const receiveProviderEvent = defineOperation(
  c.receiveProviderEvent,
  ({ db, params, body }) => receive(db, params.provider, body),
  {
    audit: { none: "delivery outcomes from a provider, recorded on the message and the event ledger" },
    surfaces: { http: true, mcp: false, cli: false },
  },
);
