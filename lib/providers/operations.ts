import { RawReply } from "@/lib/core/contract";
import { defineOperation } from "@/lib/core/operation";
import { receiveProviderEvent as receive } from "@/lib/messages/outcomes";
import * as c from "./contracts";

/** Provider callbacks (public: the provider's own signature is the credential). */
export const receiveProviderEvent = defineOperation(
  c.receiveProviderEvent,
  async ({ db, params, body, request }) => {
    const out = await receive(db, params.provider, body, request);
    // A reply in the provider's own format (Twilio's voice webhook: TwiML) goes back as it is.
    return "reply" in out ? new RawReply(out.reply.body, out.reply.contentType) : out;
  },
  {
    audit: {
      none: "provider callbacks: delivery outcomes and inbound traffic, recorded as messages and ledger events",
    },
    surfaces: { http: true, mcp: false, cli: false },
  },
);
