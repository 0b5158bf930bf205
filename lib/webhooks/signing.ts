import { createHmac, createSecretKey, type KeyObject, randomBytes } from "node:crypto";

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

/** Secrets' keys, decoded and imported once each (bounded: cleared when full). */
const keys = new Map<string, KeyObject>();
const KEY_CACHE = 1000;

function hmacKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= KEY_CACHE) keys.clear();
    key = createSecretKey(Buffer.from(secret.replace(/^whsec_/, ""), "base64"));
    keys.set(secret, key);
  }
  return key;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the secret's decoded bytes. */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac("sha256", hmacKey(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/**
 * The `webhook-signature` value: one signature, or during a rotation's dual-secret window one per
 * secret, space-separated, as Standard Webhooks allows.
 */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => signPayload(s, id, timestamp, body)).join(" ");
}
