import { and, eq } from "drizzle-orm";
import { messages, providerCallbacks, suppressions } from "@/db/schema";
import type { DbOrTx } from "@/db";
import { ApiError, invalidRequest } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { inboxByConnection } from "@/lib/inboxes/connections";
import { telephony } from "@/lib/providers/telephony";
import { expectedAccountSid, twilioAuthToken } from "@/lib/providers/telephony/credentials";
import { type FormParams, SIGNATURE_HEADER, verifyTwilioSignature } from "@/lib/providers/telephony/signature";
import { assistantTwiml, rejectTwiml, TWIML_CONTENT_TYPE } from "@/lib/providers/telephony/twiml";
import type { InboundMessage, ProviderEventResult, ProviderRequest } from "../port";
import { latestConversationKey } from "../threading";
import { e164, smsDefinition } from "./definition";
import { statusOutcome } from "./status";

/** Opt-out and opt-in keywords (the CTIA's and Twilio's defaults), matched on the whole trimmed body. */
const STOP_WORDS = new Set(["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT", "REVOKE"]);
const START_WORDS = new Set(["START", "UNSTOP", "YES"]);

const refused = (why: string) => new ApiError("invalid_signature", why, SIGNATURE_HEADER);

/** The URL Twilio signed: `PUBLIC_BASE_URL` + path + query when set (behind a proxy), else the request's own. */
export function signedUrl(requestUrl: string): string {
  if (!env.PUBLIC_BASE_URL) return requestUrl;
  const u = new URL(requestUrl);
  return `${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}${u.pathname}${u.search}`;
}

const one = (p: FormParams, name: string): string | null => {
  const v = p[name];
  return typeof v === "string" ? v : Array.isArray(v) ? (v[0] ?? null) : null;
};

/** Claims a callback's key once: false when it was applied before (a retried or replayed callback). */
async function firstTime(db: DbOrTx, eventKey: string): Promise<boolean> {
  const rows = await db
    .insert(providerCallbacks)
    .values({ provider: "twilio", callbackKey: eventKey })
    .onConflictDoNothing()
    .returning({ k: providerCallbacks.callbackKey });
  return rows.length > 0;
}

/**
 * `POST /v1/providers/twilio/events`: a form-encoded callback in Twilio's format, from Twilio or
 * the simulated carrier. Verified first — `X-Twilio-Signature` over the signed URL and the sorted
 * parameters with `TWILIO_AUTH_TOKEN` (401 and nothing stored otherwise), and `AccountSid` when
 * `TWILIO_ACCOUNT_SID` is set —, then applied once per key (`provider_callbacks`):
 * - the voice webhook of an inbound call (`Direction=inbound`, `CallStatus=ringing`) records the call
 *   and is answered with the assistant's TwiML (`text/xml`), or `<Reject/>` when the number takes none;
 * - a call status callback (`CallSid`, `CallStatus`) moves the call (lib/phone/calls);
 * - a status callback (`MessageStatus`) becomes the outcome of the message whose provider id is its
 *   `MessageSid`, with its `ErrorCode`;
 * - an inbound SMS (`Body`, no `MessageStatus`) to a bound number lands in its inbox, threaded under
 *   the remote number's latest message; `STOP` (and its synonyms) suppresses the number for the
 *   inbox's organization, `START` lifts that.
 */
export async function twilioCallback(
  _provider: string,
  payload: unknown,
  request: ProviderRequest,
): Promise<ProviderEventResult> {
  const signature = request.headers?.get(SIGNATURE_HEADER) ?? null;
  if (!signature) throw refused(`The ${SIGNATURE_HEADER} header is missing.`);
  if (!request.url) throw refused("Twilio callbacks are verified over HTTP only.");
  const params = (payload ?? {}) as FormParams;
  for (const v of Object.values(params))
    if (typeof v !== "string" && !(Array.isArray(v) && v.every((x) => typeof x === "string")))
      throw refused(`The ${SIGNATURE_HEADER} does not verify.`);
  const token = await twilioAuthToken(request.db);
  if (!verifyTwilioSignature(token, signedUrl(request.url), params, signature))
    throw refused(`The ${SIGNATURE_HEADER} does not verify.`);
  const account = expectedAccountSid();
  if (account && one(params, "AccountSid") !== account)
    throw refused("The callback's AccountSid is not this account's.");

  // A call status callback (the same route serves SMS and calls): the phone domain applies it.
  const callSid = one(params, "CallSid");
  const callStatus = one(params, "CallStatus");
  if (callSid && callStatus && !one(params, "MessageSid")) {
    const { answerInboundCall, applyCallStatus } = await import("@/lib/phone/calls");
    // Twilio's voice webhook of a call to one of the numbers: answered in TwiML (what Twilio requires
    // of a voice URL) by its inbound assistant, or rejected when the number takes no calls.
    if (one(params, "Direction") === "inbound" && callStatus === "ringing") {
      const from = e164(one(params, "From") ?? "") ?? one(params, "From") ?? "";
      const to = e164(one(params, "To") ?? "");
      if (!to) throw invalidRequest("An inbound call needs To in E.164.", "To");
      const answered = await answerInboundCall(request.db, { callSid, from, to });
      return { reply: { contentType: TWIML_CONTENT_TYPE, body: answered ? assistantTwiml(answered) : rejectTwiml() } };
    }
    const applied = await applyCallStatus(request.db, callSid, callStatus, {
      sipCode: one(params, "SipResponseCode"),
    });
    if (applied.known) return null;
    throw new ApiError("conflict", `No call with CallSid ${callSid} (yet).`, "CallSid");
  }

  const messageSid = one(params, "MessageSid") ?? one(params, "SmsSid");
  if (!messageSid) throw invalidRequest("Not a Twilio message callback: MessageSid is missing.", "MessageSid");
  const status = one(params, "MessageStatus");

  if (status) {
    // A callback racing the handoff's commit (the message's provider id not stored yet): 409, so
    // the sender retries it; the key is claimed only for a message this service knows.
    const [known] = await request.db
      .select({ id: messages.id })
      .from(messages)
      .where(eq(messages.providerMessageId, messageSid))
      .limit(1);
    if (!known) throw new ApiError("conflict", `No message with MessageSid ${messageSid} (yet).`, "MessageSid");
    if (!(await firstTime(request.db, `${messageSid}:${status}`))) return null;
    const code = one(params, "ErrorCode");
    const to = e164(one(params, "To") ?? "") ?? one(params, "To") ?? "";
    return {
      providerMessageId: messageSid,
      outcomes: [statusOutcome(to, status, code && /^\d+$/.test(code) ? Number(code) : null, new Date())],
    };
  }

  const from = e164(one(params, "From") ?? "");
  const to = e164(one(params, "To") ?? "");
  if (!from || !to) throw invalidRequest("An inbound SMS needs From and To in E.164.", "From");
  if (!(await firstTime(request.db, messageSid))) return null;
  const text = one(params, "Body") ?? "";
  const inbox = await inboxByConnection(request.db, smsDefinition.id, to);
  if (!inbox) return { inbound: [], interactions: [] };

  const keyword = text.trim().toUpperCase();
  if (STOP_WORDS.has(keyword)) {
    await request.db
      .insert(suppressions)
      .values({
        orgId: inbox.orgId,
        address: from,
        reason: "sms_stop",
        providerMessageId: messageSid,
        lastEventAt: new Date(),
      })
      .onConflictDoUpdate({
        target: [suppressions.orgId, suppressions.address],
        set: { reason: "sms_stop", providerMessageId: messageSid, lastEventAt: new Date() },
      });
  } else if (START_WORDS.has(keyword)) {
    await request.db
      .delete(suppressions)
      .where(
        and(eq(suppressions.orgId, inbox.orgId), eq(suppressions.address, from), eq(suppressions.reason, "sms_stop")),
      );
  }

  const previous = await latestConversationKey(request.db, inbox.id, smsDefinition.id, from);
  const segments = one(params, "NumSegments");
  const inbound: InboundMessage = {
    channel: smsDefinition.id,
    deliveredTo: [to],
    from: { address: from, name: null },
    to: [to],
    cc: [],
    replyTo: null,
    content: { subject: "", text, html: null, media: [] },
    thread: {
      messageKey: `<${messageSid}@sms>`,
      inReplyTo: previous,
      references: previous ? [previous] : [],
    },
    metadata: {
      provider: telephony().name,
      providerMessageId: messageSid,
      fromNumber: from,
      toNumber: to,
      segments: segments && /^\d+$/.test(segments) ? Number(segments) : null,
      status: "received",
    },
  };
  return { inbound: [inbound], interactions: [] };
}
