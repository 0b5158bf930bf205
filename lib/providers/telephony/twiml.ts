/**
 * TwiML (https://www.twilio.com/docs/voice/twiml): what Twilio does on a call — an outbound call's
 * `Twiml` (Calls API) and the reply to the voice webhook of an inbound one (which Twilio requires in
 * TwiML: JSON there fails the call with error 12300). The simulated carrier answers on its own clock.
 */

/** TwiML's media type: Twilio reads a voice webhook's reply as TwiML when it is XML. */
export const TWIML_CONTENT_TYPE = "text/xml; charset=utf-8";

const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';

/** Text and attribute values escaped for XML. */
export const xmlText = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c] ?? c);

/** Twilio holds a `<Pause>` for at most this long; `TimeLimit` (outbound) or the hang-up ends the call. */
const MAX_PAUSE_SECONDS = 600;

/**
 * The assistant's side of a call: the greeting said (`<Say>` in the call's language), then the line
 * held for the call's length and hung up. The voice agent that would follow `instructions` (speech
 * in, speech out) is the simulated one (`voice-agent.ts`); on Twilio a real deployment
 * would `<Connect><ConversationRelay url="wss://…"/></Connect>` here instead (README, "Phone").
 */
export function assistantTwiml(c: { greeting: string | null; language: string; maxDurationSeconds: number }): string {
  const say = c.greeting ? `<Say language="${xmlText(c.language)}">${xmlText(c.greeting)}</Say>` : "";
  const pause = Math.max(1, Math.min(c.maxDurationSeconds, MAX_PAUSE_SECONDS));
  return `${PROLOG}<Response>${say}<Pause length="${pause}"/><Hangup/></Response>`;
}

/** A call this service does not take (a number unknown, inactive or bound to nothing): not answered, not billed. */
export const rejectTwiml = (): string => `${PROLOG}<Response><Reject reason="rejected"/></Response>`;
