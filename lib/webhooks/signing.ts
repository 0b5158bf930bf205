import { createHmac, randomBytes } from "node:crypto";

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the secret's decoded bytes. */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/**
 * The `webhook-signature` value: one signature, or during a rotation's dual-secret window one per
 * secret, space-separated, as Standard Webhooks allows.
 */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => signPayload(s, id, timestamp, body)).join(" ");
}
