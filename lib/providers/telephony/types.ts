/**
 * The telephony provider port (lib/phone and the sms channel call it; `index.ts` picks one by
 * environment): the carrier's number inventory, provisioning and release, and outbound SMS. Every
 * provider reports back through Twilio's callback format at `POST /v1/providers/twilio/events`
 * (`X-Twilio-Signature`), so one receive path serves the simulated carrier and Twilio alike.
 */

export const NUMBER_TYPES = ["local", "toll_free", "national", "mobile"] as const;
export type NumberType = (typeof NUMBER_TYPES)[number];

/** A number of the carrier's inventory that can be provisioned (AvailablePhoneNumber before masking). */
export interface InventoryNumber {
  phoneNumber: string;
  countryCode: string;
  numberType: NumberType;
  locality: string | null;
  region: string | null;
  capabilities: string[];
  monthlyCostCents: number;
  setupCostCents: number;
}

export interface InventoryQuery {
  /** ISO 3166 alpha-2, upper case. */
  country: string;
  type?: NumberType;
  /** Digits the number must contain. */
  contains?: string;
}

/** What provisioning answered: `pending` with the outstanding regulatory `requirements`, or `active`. */
export interface Provisioned {
  providerId: string;
  status: "pending" | "active";
  requirements: Record<string, unknown>;
}

export interface OutboundSms {
  from: string;
  to: string;
  body: string;
  /** Where the provider posts the message's status callbacks (Twilio's `StatusCallback`). */
  statusCallback: string;
}

/** The provider's answer to a send: its message id (`SM…`) and first status. */
export interface SmsAccepted {
  sid: string;
  status: "queued" | "sent" | "failed";
  errorCode: number | null;
  /** The provider's own words when it refused the message (`failed`). */
  error?: string;
}

/** An outbound AI call handed to the provider (the voice agent speaks `greeting`, then follows `instructions`). */
export interface OutboundCall {
  from: string;
  to: string;
  instructions: string;
  greeting: string | null;
  voice: string;
  language: string;
  maxDurationSeconds: number;
  /** Where the provider posts the call's status callbacks (Twilio's `StatusCallback`). */
  statusCallback: string;
}

/** The provider's answer to a call: its call id (`CA…`). */
export interface CallAccepted {
  sid: string;
}

/**
 * An inbound call the service answers with a number's assistant (the call's `CallSid` from the
 * provider's voice webhook); its progress arrives as call status callbacks at `statusCallback`.
 */
export interface AnsweredCall {
  callSid: string;
  from: string;
  to: string;
  instructions: string;
  greeting: string | null;
  voice: string;
  language: string;
  maxDurationSeconds: number;
  statusCallback: string;
}

export interface TelephonyProvider {
  /** `simulated` or `twilio`: stored on each number as its `provider`. */
  readonly name: string;
  /** Whether the provider account completed identity verification (else numbers are not purchasable). */
  verified(): Promise<boolean>;
  /** The carrier's inventory of `country` (those already taken are filtered by the caller). */
  search(query: InventoryQuery): Promise<InventoryNumber[]>;
  /** The number as the inventory lists it, or null when the carrier has no such number. */
  lookup(phoneNumber: string): Promise<InventoryNumber | null>;
  provision(number: InventoryNumber): Promise<Provisioned>;
  release(providerId: string): Promise<void>;
  sendSms(message: OutboundSms): Promise<SmsAccepted>;
  /** Places an AI call; its progress arrives as Twilio call status callbacks (`CallSid`, `CallStatus`). */
  startCall(call: OutboundCall): Promise<CallAccepted>;
  /**
   * Answers a ringing inbound call with the voice agent, after its voice webhook was recorded and
   * replied to with the assistant's TwiML: Twilio executes that reply (nothing more to call); the
   * simulated carrier answers on its clock. Its progress arrives as call status callbacks.
   */
  answerCall(call: AnsweredCall): Promise<void>;
}
