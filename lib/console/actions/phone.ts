"use server";

import { runAction } from "@/lib/console/action";
import {
  createPhoneCall,
  provisionPhoneNumber,
  releasePhoneNumber,
  searchAvailablePhoneNumbers,
  updatePhoneNumber,
} from "@/lib/phone/operations";

/** The carrier's available numbers of a country (and type), as `GET /v1/phone/numbers/available`. */
export async function searchNumbersAction(input: unknown) {
  return runAction(searchAvailablePhoneNumbers, input, { labels: { country: "country", contains: "digits" } });
}

/** Buys one of the searched numbers (a paid hold under the account budget). */
export async function provisionNumberAction(input: unknown) {
  return runAction(provisionPhoneNumber, input, { labels: { phoneNumber: "phone number" } });
}

/**
 * `PATCH /v1/phone/numbers/{numberId}`: binds a number to an inbox (its SMS connection) or an agent,
 * unbinds with `null`, or sets its inbound assistant (`inbound*`, `null` back to the default).
 */
export async function updateNumberAction(input: unknown) {
  return runAction(updatePhoneNumber, input, {
    labels: {
      inboxId: "inbox",
      agentId: "agent",
      inboundInstructions: "instructions",
      inboundGreeting: "greeting",
      inboundVoice: "voice",
      inboundLanguage: "language",
    },
  });
}

/** Places an AI call, as `POST /v1/phone/calls` (the same operation). */
export async function placeCallAction(input: unknown) {
  return runAction(createPhoneCall, input, {
    labels: { fromNumberId: "from number", to: "to", maxDurationSeconds: "maximum duration" },
  });
}

/** Gives a number back to the carrier (`releasing`, then `released`). */
export async function releaseNumberAction(input: unknown) {
  return runAction(releasePhoneNumber, input);
}
