import { parsePhoneNumberFromString } from "libphonenumber-js";
import { RetryLater } from "@/lib/channels/port";
import { ApiError } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { callbackUrl } from "./credentials";
import { assistantTwiml } from "./twiml";
import type {
  AnsweredCall,
  CallAccepted,
  InventoryNumber,
  InventoryQuery,
  NumberType,
  OutboundCall,
  OutboundSms,
  Provisioned,
  SmsAccepted,
  TelephonyProvider,
} from "./types";

/**
 * The Twilio adapter (selected when `TWILIO_ACCOUNT_SID` is set): Twilio's 2010-04-01 REST API at
 * `TWILIO_API_URL` spoken with `fetch` — form-encoded POSTs, HTTP basic auth `AccountSid:AuthToken`,
 * JSON answers (`.json` resources). Numbers: `AvailablePhoneNumbers/{Country}/{Local|Mobile|TollFree|National}.json`
 * (search and lookup), `IncomingPhoneNumbers.json` (buy, its SMS, status and voice callbacks pointed at
 * this service's `POST /v1/providers/twilio/events`) and `IncomingPhoneNumbers/{Sid}.json` DELETE
 * (release); `Messages.json` (SMS); `Calls.json` (calls, every status event called back).
 *
 * Errors: a network failure, a 5xx or an unreadable answer is a plain `Error` (the callers answer 502
 * `provider_unavailable`, the outboxes retry); a 4xx is Twilio refusing the request (a trial account
 * buying a second number, a number that needs an address or a regulatory bundle, an invalid `To`):
 * an `ApiError` 400 carrying Twilio's own code and message. An SMS Twilio refuses becomes a `failed`
 * outcome with Twilio's code; Twilio's 429 asks the SMS outbox to retry later.
 */

const API_VERSION = "2010-04-01";
const TIMEOUT_MS = 15_000;

/** A Twilio error answer (`{code, message, more_info, status}`). */
export class TwilioError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | null,
    message: string,
  ) {
    super(message);
    this.name = "TwilioError";
  }
}

type Form = Record<string, string | string[] | number | boolean | null | undefined>;

function credentials(): { sid: string; token: string } {
  const sid = env.TWILIO_ACCOUNT_SID;
  const token = env.TWILIO_AUTH_TOKEN;
  if (!sid || !token) throw new Error("TWILIO_ACCOUNT_SID is set without TWILIO_AUTH_TOKEN");
  return { sid, token };
}

/** One call of the account's resources (`path` below `/2010-04-01/Accounts/{Sid}`); null on 404 when `missingOk`. */
async function twilio<T>(
  method: "GET" | "POST" | "DELETE",
  path: string,
  opts: { form?: Form; query?: Form; missingOk?: boolean } = {},
): Promise<T | null> {
  const { sid, token } = credentials();
  const base = env.TWILIO_API_URL.replace(/\/+$/, "");
  const url = new URL(`${base}/${API_VERSION}/Accounts/${encodeURIComponent(sid)}${path}`);
  for (const [k, v] of Object.entries(opts.query ?? {}))
    if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  let body: string | undefined;
  if (opts.form) {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.form)) {
      if (v === undefined || v === null) continue;
      for (const one of Array.isArray(v) ? v : [v]) form.append(k, String(one));
    }
    body = form.toString();
  }
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${sid}:${token}`).toString("base64")}`,
      accept: "application/json",
      ...(body !== undefined ? { "content-type": "application/x-www-form-urlencoded" } : {}),
    },
    body,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  }).catch((err: unknown) => {
    throw new Error(`Twilio ${method} ${path}: ${err instanceof Error ? err.message : String(err)}`);
  });
  const text = await res.text();
  if (res.status === 404 && opts.missingOk) return null;
  if (!res.ok) {
    let code: number | null = null;
    let message = `Twilio answered ${res.status}`;
    try {
      const e = JSON.parse(text) as { code?: unknown; message?: unknown };
      if (typeof e.code === "number") code = e.code;
      if (typeof e.message === "string" && e.message) message = e.message;
    } catch {
      // not JSON: keep the status line
    }
    throw new TwilioError(res.status, code, message);
  }
  if (res.status === 204 || !text) return {} as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`Twilio ${method} ${path}: an answer that is not JSON`);
  }
}

/** A Twilio refusal (4xx other than 401/403/429) as the API's 400 with Twilio's words; anything else unchanged. */
function refusal(err: unknown, param: string | null): unknown {
  if (err instanceof TwilioError && err.status >= 400 && err.status < 500 && ![401, 403, 429].includes(err.status))
    return new ApiError(
      "invalid_request",
      `Twilio refused the request${err.code !== null ? ` (error ${err.code})` : ""}: ${err.message}`,
      param,
    );
  return err;
}

const RESOURCE_OF: Record<NumberType, string> = {
  local: "Local",
  mobile: "Mobile",
  toll_free: "TollFree",
  national: "National",
};

/**
 * Monthly prices in cents by number type: Twilio's price list lives in its separate Pricing API
 * (pricing.twilio.com), which this adapter does not call; these are Twilio's US list prices, shown
 * as estimates and held under the budget the same way.
 */
const MONTHLY_CENTS: Record<NumberType, number> = { local: 115, mobile: 115, national: 115, toll_free: 215 };

interface AvailableJson {
  phone_number: string;
  locality?: string | null;
  region?: string | null;
  iso_country?: string | null;
  capabilities?: Record<string, boolean | undefined> | null;
}

const toInventory = (n: AvailableJson, country: string, type: NumberType): InventoryNumber => ({
  phoneNumber: n.phone_number,
  countryCode: (n.iso_country ?? country).toUpperCase(),
  numberType: type,
  locality: n.locality || null,
  region: n.region || null,
  capabilities: Object.entries(n.capabilities ?? {})
    .filter(([, on]) => on === true)
    .map(([k]) => k.toLowerCase())
    .filter((k) => k === "sms" || k === "mms" || k === "voice" || k === "fax"),
  monthlyCostCents: MONTHLY_CENTS[type],
  setupCostCents: 0,
});

async function available(country: string, type: NumberType, contains?: string): Promise<InventoryNumber[]> {
  // 404: Twilio offers no numbers of that type in that country.
  const page = await twilio<{ available_phone_numbers?: AvailableJson[] }>(
    "GET",
    `/AvailablePhoneNumbers/${encodeURIComponent(country)}/${RESOURCE_OF[type]}.json`,
    { query: { Contains: contains, PageSize: 50 }, missingOk: true },
  );
  return (page?.available_phone_numbers ?? []).map((n) => toInventory(n, country, type));
}

/** The types a search without `type` covers (National is rare and overlaps Local). */
const SEARCHED: NumberType[] = ["local", "mobile", "toll_free"];

/** Twilio's SMS statuses as the port's first status of a send. */
const firstStatus = (s: string | undefined): SmsAccepted["status"] =>
  s === "failed" || s === "undelivered" ? "failed" : s === "sent" || s === "delivered" ? "sent" : "queued";

export const twilioCarrier: TelephonyProvider = {
  name: "twilio",
  /** A `Full` (upgraded, identity-verified) and `active` account; a `Trial` account's numbers are not purchasable. */
  async verified() {
    const account = await twilio<{ type?: string; status?: string }>("GET", ".json");
    return account?.type === "Full" && account.status === "active";
  },
  async search(q: InventoryQuery) {
    const types = q.type ? [q.type] : SEARCHED;
    try {
      return (await Promise.all(types.map((t) => available(q.country, t, q.contains)))).flat();
    } catch (err) {
      throw refusal(err, "country");
    }
  },
  async lookup(phoneNumber) {
    const country = parsePhoneNumberFromString(phoneNumber)?.country;
    if (!country) return null;
    try {
      for (const type of SEARCHED) {
        const found = (await available(country, type, phoneNumber.replace(/^\+/, ""))).find(
          (n) => n.phoneNumber === phoneNumber,
        );
        if (found) return found;
      }
      return null;
    } catch (err) {
      throw refusal(err, "phoneNumber");
    }
  },
  async provision(n): Promise<Provisioned> {
    const events = callbackUrl();
    try {
      const bought = await twilio<{ sid?: string }>("POST", "/IncomingPhoneNumbers.json", {
        form: {
          PhoneNumber: n.phoneNumber,
          SmsUrl: events,
          SmsMethod: "POST",
          StatusCallback: events,
          StatusCallbackMethod: "POST",
          VoiceUrl: events,
          VoiceMethod: "POST",
        },
      });
      if (!bought?.sid) throw new Error("Twilio bought the number but answered no sid");
      return { providerId: bought.sid, status: "active", requirements: {} };
    } catch (err) {
      throw refusal(err, "phoneNumber");
    }
  },
  async release(providerId) {
    // 404: released already (on Twilio's side) — what a release wants.
    await twilio("DELETE", `/IncomingPhoneNumbers/${encodeURIComponent(providerId)}.json`, { missingOk: true });
  },
  async sendSms(m: OutboundSms): Promise<SmsAccepted> {
    try {
      const sent = await twilio<{ sid?: string; status?: string; error_code?: number | null }>(
        "POST",
        "/Messages.json",
        {
          form: { To: m.to, From: m.from, Body: m.body, StatusCallback: m.statusCallback },
        },
      );
      if (!sent?.sid) throw new Error("Twilio accepted the message but answered no sid");
      return { sid: sent.sid, status: firstStatus(sent.status), errorCode: sent.error_code ?? null };
    } catch (err) {
      if (err instanceof TwilioError && err.status === 429) throw new RetryLater(60_000, err.message);
      // Refused for good (an invalid To, an unsubscribed recipient, a sender not allowed): a failed send, not a retry.
      if (err instanceof TwilioError && err.status >= 400 && err.status < 500 && ![401, 403].includes(err.status))
        return { sid: "", status: "failed", errorCode: err.code, error: err.message };
      throw err;
    }
  },
  async startCall(c: OutboundCall): Promise<CallAccepted> {
    const placed = await twilio<{ sid?: string }>("POST", "/Calls.json", {
      form: {
        To: c.to,
        From: c.from,
        Twiml: assistantTwiml(c),
        TimeLimit: c.maxDurationSeconds,
        StatusCallback: c.statusCallback,
        StatusCallbackMethod: "POST",
        StatusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
      },
    });
    if (!placed?.sid) throw new Error("Twilio placed the call but answered no sid");
    return { sid: placed.sid };
  },
  /**
   * Nothing to call: Twilio's voice webhook of the inbound call was answered with the assistant's
   * TwiML (`assistantTwiml`, the callback route's `text/xml` reply), which Twilio executes; its
   * status arrives at the number's `StatusCallback`.
   */
  answerCall(_a: AnsweredCall): Promise<void> {
    return Promise.resolve();
  },
};
