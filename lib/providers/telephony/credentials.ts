import { randomBytes } from "node:crypto";
import type { DbOrTx } from "@/db";
import { env, publicBaseUrl } from "@/lib/env";
import { settingOnce } from "@/lib/settings";

/**
 * The key of `X-Twilio-Signature`: `TWILIO_AUTH_TOKEN`, else a token generated at first use and
 * kept in the database (`system_settings`), which the simulated carrier signs its callbacks with.
 */
export async function twilioAuthToken(db: DbOrTx): Promise<string> {
  if (env.TWILIO_AUTH_TOKEN) return env.TWILIO_AUTH_TOKEN;
  return settingOnce(db, "twilio_auth_token", () => randomBytes(16).toString("hex"));
}

/** The simulated carrier's account SID (fictional). */
export const SIMULATED_ACCOUNT_SID = `AC${"5".repeat(32)}`;
/** The account SID callbacks must name when `TWILIO_ACCOUNT_SID` is set (null: not checked). */
export const expectedAccountSid = (): string | null => env.TWILIO_ACCOUNT_SID ?? null;

/** The callback URL the service verifies against: its public base (or its own address) + the path. */
export const callbackUrl = (): string => `${publicBaseUrl()}/v1/providers/twilio/events`;
