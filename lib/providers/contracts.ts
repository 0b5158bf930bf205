import { z } from "zod";
import { defineContract } from "@/lib/core/contract";

export const receiveProviderEvent = defineContract({
  id: "receiveProviderEvent",
  method: "POST",
  path: "/v1/providers/{provider}/events",
  access: "public",
  tag: "Providers",
  summary: "Provider callbacks",
  description:
    "Callbacks from channel providers, authenticated by the provider's own signature or secret (no API key). `ses`: Amazon SNS HTTP/S messages carrying SES delivery events; subscriptions are confirmed automatically. `telegram`: Bot API updates of a connected bot, verified by the `X-Telegram-Bot-Api-Secret-Token` the service registered with `setWebhook` (missing or wrong: 401, nothing stored); text messages land in the bot's inbox, a callback button's tap is answered and recorded as a `button_tap` event. `twilio`: SMS status callbacks, inbound SMS, call status callbacks (`CallSid`, `CallStatus`) and the voice webhook of an inbound call (`Direction=inbound`, `CallStatus=ringing`: recorded as a call answered by the number's inbound assistant when the number is bound to an inbox or an agent, and answered in **TwiML** (`text/xml`), as Twilio requires of a voice URL: `<Response><Say>` the greeting, the line held for the call's length, `<Hangup/>`; `<Response><Reject/></Response>` for a number that takes no calls; form-encoded, as Twilio and the embedded simulated carrier post them), verified by `X-Twilio-Signature` over `PUBLIC_BASE_URL` (else the request's own origin) + path + query and the sorted parameters, keyed with `TWILIO_AUTH_TOKEN` (missing or wrong: 401, nothing stored); a repeated `MessageSid` (and status) or `CallSid` and status is applied once.",
  params: z.strictObject({ provider: z.enum(["ses", "telegram", "twilio"]) }),
  // The provider's message format: its fields are the provider's, not ours to restrict.
  body: z.looseObject({}),
  idempotent: false,
  example: { Type: "Notification" },
  errors: ["not_permitted", "invalid_signature", "conflict"],
  response: z.object({ received: z.literal(true), applied: z.int() }),
  // Twilio's voice webhook is answered in TwiML.
  rawReplies: ["text/xml"],
});
