import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { paginationQuery, paginationSchema } from "@/lib/core/pagination";
import { uuidParam } from "@/lib/core/schemas";
import { VOICE_IDS } from "./voices";

const tag = "Phone";

export const PHONE_NUMBER_TYPES = ["local", "toll_free", "national", "mobile"] as const;
export const PHONE_NUMBER_STATUSES = ["pending", "active", "releasing", "released", "failed"] as const;

const e164 = z
  .string()
  .trim()
  .regex(/^\+[1-9]\d{6,14}$/, "A phone number in E.164 form, e.g. +12025550142.");
const country = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}$/, "An ISO 3166 alpha-2 country code, e.g. US.")
  .transform((c) => c.toUpperCase());
const metadata = z.record(z.string(), z.unknown());

export const phoneNumberSchema = z.object({
  object: z.literal("phone_number"),
  id: z.uuid(),
  phoneNumber: z.string(),
  countryCode: z.string(),
  numberType: z.enum(PHONE_NUMBER_TYPES),
  status: z.enum(PHONE_NUMBER_STATUSES),
  capabilities: z.array(z.string()),
  inboxId: z.uuid().nullable().describe("Inbound SMS lands in this inbox; sends from it go out from this number."),
  agentId: z.uuid().nullable(),
  monthlyCostUsd: z.number(),
  setupCostUsd: z.number(),
  requirements: metadata.describe("Outstanding regulatory requirements while `pending` (else empty)."),
  metadata,
  inboundInstructions: z.string().nullable(),
  inboundGreeting: z.string().nullable(),
  inboundVoice: z.enum(VOICE_IDS).nullable(),
  inboundLanguage: z.string().nullable(),
  createdAt: z.string(),
  purchasedAt: z.string().nullable(),
  releasedAt: z.string().nullable(),
});
export type PhoneNumber = z.infer<typeof phoneNumberSchema>;

export const availablePhoneNumberSchema = z.object({
  object: z.literal("phone_number.available"),
  phoneNumber: z.string().describe("Partially masked when not purchasable."),
  countryCode: z.string(),
  numberType: z.enum(PHONE_NUMBER_TYPES),
  purchasable: z.boolean().describe("False when the provider account has not completed identity verification."),
  locality: z.string().nullable(),
  region: z.string().nullable(),
  capabilities: z.array(z.string()),
  monthlyCostUsd: z.number().nullable(),
  setupCostUsd: z.number().nullable(),
});

const numberParams = z.strictObject({ numberId: uuidParam });

export const searchAvailablePhoneNumbers = defineContract({
  id: "searchAvailablePhoneNumbers",
  method: "GET",
  path: "/v1/phone/numbers/available",
  access: "phone:read",
  tag,
  summary: "Search available numbers",
  description:
    "The telephony provider's inventory of `country` (ISO 3166 alpha-2), optionally of one `type` and containing the digits `contains`. Numbers already provisioned on this deployment are left out. The embedded simulated carrier has fictional numbers only (US and CA `+1 NPA 555 0100–0199`, GB `+44 7700 900xxx` and `+44 20 7946 0xxx`).",
  query: z.strictObject({
    country,
    type: z.enum(PHONE_NUMBER_TYPES).optional(),
    contains: z
      .string()
      .trim()
      .regex(/^\d{1,15}$/, "Digits only.")
      .optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  }),
  errors: ["provider_unavailable"],
  response: z.object({ object: z.literal("list"), data: z.array(availablePhoneNumberSchema) }),
});

export const provisionPhoneNumber = defineContract({
  id: "provisionPhoneNumber",
  method: "POST",
  path: "/v1/phone/numbers",
  access: "phone:write",
  tag,
  summary: "Provision a number",
  description:
    "Buys `phoneNumber` (one of `GET /v1/phone/numbers/available`) from the provider. Its setup cost and first month are a paid hold under the account budget's `maxSpendPerDayCents` (429 `spend_cap_reached`). Where the country needs regulatory documents the number is `pending` with its outstanding `requirements`: not an error. With `inboxId` the number becomes that inbox's SMS connection.",
  body: z.strictObject({
    phoneNumber: e164,
    inboxId: z.uuid().optional(),
    agentId: z.uuid().optional(),
    metadata: metadata.optional(),
  }),
  example: { phoneNumber: "+12025550142" },
  successStatus: 201,
  errors: ["conflict", "spend_cap_reached", "provider_unavailable"],
  response: phoneNumberSchema,
});

export const listPhoneNumbers = defineContract({
  id: "listPhoneNumbers",
  method: "GET",
  path: "/v1/phone/numbers",
  access: "phone:read",
  tag,
  summary: "List numbers",
  description: "The organization's numbers, newest first, released ones included (with `status: released`).",
  query: z.strictObject({ ...paginationQuery() }),
  response: z.object({ object: z.literal("list"), data: z.array(phoneNumberSchema), pagination: paginationSchema }),
});

export const getPhoneNumber = defineContract({
  id: "getPhoneNumber",
  method: "GET",
  path: "/v1/phone/numbers/{numberId}",
  access: "phone:read",
  tag,
  summary: "Get a number",
  params: numberParams,
  response: phoneNumberSchema,
});

export const phoneNumberUpdateSchema = z
  .strictObject({
    inboxId: z.uuid().nullable().optional(),
    agentId: z.uuid().nullable().optional(),
    inboundInstructions: z.string().max(8000).nullable().optional(),
    inboundGreeting: z.string().max(500).nullable().optional(),
    inboundVoice: z.enum(VOICE_IDS).nullable().optional(),
    inboundLanguage: z
      .string()
      .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, "An ISO language code, e.g. en or pt-BR.")
      .nullable()
      .optional(),
    metadata: metadata.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, "Give at least one property to change.");

export const updatePhoneNumber = defineContract({
  id: "updatePhoneNumber",
  method: "PATCH",
  path: "/v1/phone/numbers/{numberId}",
  access: "phone:write",
  tag,
  summary: "Update a number",
  description:
    "PhoneNumberUpdateRequest: at least one property. An explicit `null` unbinds `inboxId` or `agentId` (an inbox's SMS connection goes with it) or resets an `inbound*` field to the default. `inboundVoice` is one of `GET /v1/phone/voices`.",
  params: numberParams,
  body: phoneNumberUpdateSchema,
  example: { inboundVoice: "marin" },
  errors: ["conflict"],
  response: phoneNumberSchema,
});

export const releasePhoneNumber = defineContract({
  id: "releasePhoneNumber",
  method: "POST",
  path: "/v1/phone/numbers/{numberId}/release",
  access: "phone:write",
  tag,
  summary: "Release a number",
  description:
    "Gives the number back to the provider: `releasing`, then `released`. Its inbox binding goes first, so it neither sends nor receives from then on. Releasing a released number answers it as it is.",
  params: numberParams,
  errors: ["provider_unavailable"],
  response: phoneNumberSchema,
});

const voiceSchema = z.object({
  voiceId: z.enum(VOICE_IDS),
  name: z.string(),
  language: z.enum(["multilingual", "en", "pt"]),
  description: z.string().nullable(),
  gender: z.string().nullable(),
  accent: z.string().nullable(),
});

export const listPhoneVoices = defineContract({
  id: "listPhoneVoices",
  method: "GET",
  path: "/v1/phone/voices",
  access: "phone:read",
  tag,
  summary: "List voices",
  description: "The voices a call's `voice` or a number's `inboundVoice` can name.",
  response: z.object({ object: z.literal("list"), data: z.array(voiceSchema) }),
});

export const PHONE_CALL_STATUSES = [
  "queued",
  "ringing",
  "in_progress",
  "completed",
  "failed",
  "no_answer",
  "busy",
] as const;

const language = z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, "An ISO language code, e.g. en or pt-BR.");

export const phoneCallSchema = z.object({
  object: z.literal("phone_call"),
  id: z.uuid(),
  direction: z.enum(["outbound", "inbound"]),
  fromNumberId: z.uuid(),
  from: z.string(),
  to: z.string(),
  status: z.enum(PHONE_CALL_STATUSES),
  instructions: z.string(),
  greeting: z.string().nullable(),
  voice: z.enum(VOICE_IDS),
  language: z.string(),
  maxDurationSeconds: z.int(),
  metadata,
  timeline: z
    .array(z.object({ status: z.enum(PHONE_CALL_STATUSES), at: z.string(), reason: z.string().nullable() }))
    .describe("Every status the call took, oldest first (each also a `call.status_changed` event)."),
  failureReason: z.string().nullable().describe("Why a call ended `failed`, `busy` or `no_answer`."),
  durationSeconds: z.int().nullable(),
  transcript: z
    .object({
      turns: z.array(
        z.object({
          speaker: z.enum(["agent", "callee"]),
          text: z.string(),
          startSeconds: z.number().describe("Seconds from the call's answer."),
        }),
      ),
    })
    .nullable()
    .describe("Once `completed`."),
  summary: z
    .object({
      outcome: z.string(),
      text: z.string(),
      keyPoints: z.array(z.string()),
      turns: z.int(),
      durationSeconds: z.int(),
    })
    .nullable()
    .describe("A structured summary, once `completed`."),
  recording: z
    .object({
      url: z.string().describe("Short-lived signed URL (no API key)."),
      expiresAt: z.string(),
      contentType: z.string(),
      durationSeconds: z.number(),
      engine: z.enum(["espeak-ng", "silent"]),
      note: z.string().nullable(),
    })
    .nullable()
    .describe("Once `completed`."),
  createdAt: z.string(),
  answeredAt: z.string().nullable(),
  endedAt: z.string().nullable(),
});
export type PhoneCall = z.infer<typeof phoneCallSchema>;

export const createPhoneCall = defineContract({
  id: "createPhoneCall",
  method: "POST",
  path: "/v1/phone/calls",
  access: "phone:call",
  tag,
  summary: "Place a call",
  description:
    "Places an asynchronous AI call from `fromNumberId` (an `active` number of the organization) to `to`: answers at once with the call `queued`; it moves `queued → ringing → in_progress → completed` (or ends `failed`, `no_answer`, `busy`), each status a `call.status_changed` event (ledger partition `call:<id>`, webhooks) and an entry of its `timeline`. Once `completed` it has a `transcript`, a structured `summary` and a `recording` (a short-lived URL). A call the provider never finishes is ended `failed` by the sweeper after `maxDurationSeconds` plus a margin. The embedded simulated carrier's magic callees: `+12025550191` busy, `+12025550192` no answer, `+12025550193` failed.",
  body: z.strictObject({
    fromNumberId: z.uuid(),
    to: e164,
    instructions: z.string().trim().min(1).max(8000),
    greeting: z.string().trim().min(1).max(500).optional(),
    voice: z.enum(VOICE_IDS).default("marin"),
    language: language.default("en"),
    maxDurationSeconds: z.int().min(10).max(3600).default(600),
    metadata: metadata.optional(),
  }),
  example: {
    fromNumberId: "0195f0c2-8a4e-7c1d-9b3a-2f6e8d4c1a70",
    to: "+13125550123",
    instructions: "Confirm tomorrow's 10:00 appointment and offer 14:00 if it does not suit.",
    greeting: "Hi, this is the clinic's assistant.",
  },
  successStatus: 201,
  errors: ["resource_not_found", "conflict"],
  response: phoneCallSchema,
});

export const listPhoneCalls = defineContract({
  id: "listPhoneCalls",
  method: "GET",
  path: "/v1/phone/calls",
  access: "phone:read",
  tag,
  summary: "List calls",
  description: "The organization's calls, newest first.",
  query: z.strictObject({ ...paginationQuery() }),
  response: z.object({ object: z.literal("list"), data: z.array(phoneCallSchema), pagination: paginationSchema }),
});

export const getPhoneCall = defineContract({
  id: "getPhoneCall",
  method: "GET",
  path: "/v1/phone/calls/{callId}",
  access: "phone:read",
  tag,
  summary: "Get a call",
  description: "Its status and timeline; once `completed`, its transcript, summary and recording (a fresh signed URL).",
  params: z.strictObject({ callId: uuidParam }),
  response: phoneCallSchema,
});
