import { env } from "@/lib/env";
import { simulatedCarrier } from "./simulated";
import { twilioCarrier } from "./twilio";
import type { TelephonyProvider } from "./types";

export type * from "./types";
export { NUMBER_TYPES } from "./types";

/**
 * The telephony provider of this deployment: the Twilio adapter (`twilio.ts`, Twilio's REST API at
 * `TWILIO_API_URL` with `TWILIO_ACCOUNT_SID`/`TWILIO_AUTH_TOKEN`) when `TWILIO_ACCOUNT_SID` is set,
 * else the embedded simulated carrier. Read per call, so the environment decides at run time.
 */
export function telephony(): TelephonyProvider {
  return env.TWILIO_ACCOUNT_SID ? twilioCarrier : simulatedCarrier;
}
