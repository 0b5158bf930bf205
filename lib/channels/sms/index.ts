import { randomUUID } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { suppressions } from "@/db/schema";
import { invalidRequest } from "@/lib/core/errors";
import { numberOfInbox } from "@/lib/phone/number";
import { telephony } from "@/lib/providers/telephony";
import { countSegments } from "@/lib/providers/telephony/segments";
import { callbackUrl } from "@/lib/providers/telephony/simulated";
import { defineChannel, type DeliveryOutcome, failedForInbox } from "../port";
import { e164, smsDefinition } from "./definition";
import { STATUS_RANK, statusOutcome } from "./status";

/** The most segments one SMS may take (Twilio's own cap for concatenated messages is 10). */
export const MAX_SEGMENTS = 10;

/** What an sms send's outbox entry carries: the numbers and the text. */
interface SmsWire {
  from: string;
  to: string;
  text: string;
}

/**
 * SMS: the number bound to an inbox (`PATCH /v1/phone/numbers/{id}` `inboxId`) is its SMS
 * connection. A send goes to one E.164 number; its text is counted in segments (GSM-7 or UCS-2, at
 * most 10); the telephony provider (`lib/providers/telephony`: the simulated carrier, or Twilio)
 * takes it after the commit and reports its status by callbacks at `POST /v1/providers/twilio/events`
 * (`status.ts` maps them to outcomes; `callbacks.ts` verifies them and reads inbound SMS).
 */
export const sms = defineChannel({
  ...smsDefinition,
  address(raw) {
    const address = e164(raw);
    return address
      ? { ok: true, address }
      : { ok: false, message: `"${raw}" is not a phone number in international form (E.164, e.g. +12025550142).` };
  },
  validate(s) {
    if (s.internal.size > 0) throw invalidRequest("SMS goes to phone numbers, not to inboxes.", "to");
    if (s.recipients.length !== 1)
      throw invalidRequest("An SMS goes to one number: send one message per recipient (no cc or bcc).", "to");
  },
  messageKey: () => `<${randomUUID()}@sms>`,
  // A send starts its own thread unless it replies (replyToMessageId); inbound joins the number's latest.
  threadOptions: () => ({ inReplyTo: null, references: [] }),
  async compose(db, d) {
    const number = await numberOfInbox(db, d.from.inboxId);
    if (!number)
      throw invalidRequest(
        "This inbox has no phone number; bind one with PATCH /v1/phone/numbers/{numberId} and `inboxId`.",
        "channel",
      );
    if (number.status !== "active")
      throw invalidRequest(
        `The inbox's number ${number.phoneNumber} is ${number.status}${number.status === "pending" ? " (regulatory documents outstanding)" : ""}; it cannot send yet.`,
        "inboxId",
      );
    const text = d.content.text?.trim() ? d.content.text : null;
    if (!text) throw invalidRequest("An SMS needs `text`.", "text");
    if (d.content.media.length > 0) throw invalidRequest("SMS sends take no attachments.", "attachments");
    const count = countSegments(text);
    if (count.segments > MAX_SEGMENTS)
      throw invalidRequest(
        `The text takes ${count.segments} SMS segments (${count.encoding}); at most ${MAX_SEGMENTS}: ${count.encoding === "GSM-7" ? 1530 : 670} characters in ${count.encoding}.`,
        "text",
      );
    // STOP is the recipient's own opt-out: never overridden (ignoreComplaints does not apply).
    const stopped = await db
      .select({ address: suppressions.address })
      .from(suppressions)
      .where(
        and(
          eq(suppressions.orgId, d.from.orgId),
          eq(suppressions.reason, "sms_stop"),
          inArray(suppressions.address, d.external),
        ),
      );
    if (stopped.length > 0)
      throw invalidRequest(`${stopped[0]?.address} replied STOP; it receives no SMS until it replies START.`, "to");
    const wire: SmsWire = { from: number.phoneNumber, to: d.external[0] ?? "", text };
    return Buffer.from(JSON.stringify(wire));
  },
  async deliver(w) {
    const wire = JSON.parse(w.body.toString("utf8")) as SmsWire;
    const provider = telephony();
    const accepted = await provider.sendSms({
      from: wire.from,
      to: wire.to,
      body: wire.text,
      statusCallback: callbackUrl(),
    });
    const count = countSegments(wire.text);
    const outcome: DeliveryOutcome = statusOutcome(wire.to, accepted.status, accepted.errorCode, new Date());
    outcome.detail = { ...outcome.detail, from: wire.from, segments: String(count.segments), encoding: count.encoding };
    // Refused by the provider at the send (Twilio's 4xx): its own words rather than a bare code.
    if (accepted.error) outcome.detail.error = accepted.error;
    return { provider: provider.name, providerMessageId: accepted.sid, outcomes: [outcome] };
  },
  byDefault: {
    // After a2a (every recipient an inbox here), before email: every recipient a phone number and
    // the sending inbox has one (resolve's `senderChannels`).
    rank: 5,
    takes: (s) => s.senderChannels?.includes(smsDefinition.id) === true && s.recipients.every((r) => e164(r) === r),
  },
  outboundMetadata: () => ({ provider: null, providerMessageId: null }),
  copyMetadata: (p) => ({ internal: true, senderInboxId: p.senderInboxId }),
  outcomeMetadata(current, { receipt, outcomes }) {
    const out: Record<string, unknown> = { ...(current ?? {}) };
    if (receipt) {
      out.provider = receipt.provider;
      out.providerMessageId = receipt.providerMessageId;
    }
    for (const o of outcomes) {
      const status = o.providerType;
      if ((STATUS_RANK[status] ?? 0) < (STATUS_RANK[typeof out.status === "string" ? out.status : ""] ?? -1)) continue;
      out.status = status;
      out.lastEventType = status;
      out.lastEventAt = o.at.toISOString();
      if (o.detail.from) out.fromNumber = o.detail.from;
      out.toNumber = o.recipient;
      if (o.detail.segments) out.segments = Number(o.detail.segments);
      if (o.detail.encoding) out.encoding = o.detail.encoding;
      if (o.detail.errorCode) {
        out.errorCode = Number(o.detail.errorCode);
        out.error = o.detail.error ?? null;
      }
    }
    return out;
  },
  unavailable: failedForInbox,
  providers: ["twilio"],
  providerEvent: async (provider, payload, request) =>
    (await import("./callbacks")).twilioCallback(provider, payload, request),
  // Nothing to read off a socket: inbound SMS arrives as provider callbacks.
  receive: null,
});
