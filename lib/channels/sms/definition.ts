import { parsePhoneNumberFromString } from "libphonenumber-js";
import { z } from "zod";
import { defineChannelDefinition } from "../definition";

/**
 * The sms channel's public `channelMetadata`: the provider and its message id (`SM…`), the numbers,
 * the segments and their encoding, the last status callback and, when the carrier refused the
 * message, its error code with what it means (30034: the sender is not registered for A2P 10DLC).
 */
export const smsMetadataSchema = z.object({
  provider: z.string().nullable().optional(),
  providerMessageId: z.string().nullable().optional(),
  fromNumber: z.string().nullable().optional(),
  toNumber: z.string().nullable().optional(),
  segments: z.int().nullable().optional(),
  encoding: z.string().nullable().optional(),
  status: z.string().nullable().optional(),
  lastEventType: z.string().nullable().optional(),
  lastEventAt: z.string().nullable().optional(),
  errorCode: z.int().nullable().optional(),
  error: z.string().nullable().optional(),
});

/**
 * A phone number in E.164 (`+12025550142`), from any usual writing of it (`+1 (202) 555-0142`);
 * null when it is not one. "Possible" rather than "valid": the fictional drama ranges (UK
 * `+44 7700 900xxx`) are not assigned numbers, and the simulated carrier uses them.
 */
export function e164(raw: string): string | null {
  const v = raw.trim();
  if (!v.startsWith("+")) return null;
  const parsed = parsePhoneNumberFromString(v);
  return parsed?.isPossible() ? parsed.number : null;
}

export const smsDefinition = defineChannelDefinition({
  id: "sms",
  label: "SMS",
  metadata: smsMetadataSchema,
  inSendResponse: true,
  badge: "sms",
  options: z.object({}),
  handleKinds: ["sms", "phone"],
  handle: {
    normalize: e164,
    hint: "Enter the number in international form, e.g. +12025550142.",
    example: "+12025550142",
  },
  connection: {
    label: "Phone number",
    none: "No number",
    connect: {
      kind: "planned",
      note: "Bind one of the organization's numbers to this inbox with PATCH /v1/phone/numbers/{numberId} and its inboxId; the console's Phone page is still to come.",
    },
  },
});
