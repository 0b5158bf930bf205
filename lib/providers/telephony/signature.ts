import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "X-Twilio-Signature";

export type FormParams = Record<string, string | string[]>;

/**
 * Twilio's request signature: HMAC-SHA1 with the auth token over the URL Twilio called followed by
 * every POST parameter, sorted by name, as name then value (each value of a repeated name, sorted),
 * base64-encoded.
 */
export function twilioSignature(authToken: string, url: string, params: FormParams): string {
  let data = url;
  for (const name of Object.keys(params).sort()) {
    const value = params[name];
    const values = Array.isArray(value) ? [...value].sort() : [value ?? ""];
    for (const v of values) data += name + v;
  }
  return createHmac("sha1", authToken).update(data, "utf8").digest("base64");
}

/** Whether `signature` is Twilio's for this URL and these parameters (constant-time compare). */
export function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: FormParams,
  signature: string | null,
): boolean {
  if (!signature) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Form fields as one object (a repeated field becomes a list), as Twilio posts them. */
export function formParams(body: string): FormParams {
  const out: FormParams = {};
  for (const [k, v] of new URLSearchParams(body)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}
