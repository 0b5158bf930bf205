import { createVerify, X509Certificate } from "node:crypto";
import { z } from "zod";
import { outboundFetch } from "@/lib/providers/http";

/**
 * Amazon SNS message signatures (HTTP/S subscriptions): the canonical string of the message's
 * fields, signed with the key of the certificate at `SigningCertURL`, which must be an HTTPS URL on
 * an SNS host. Certificates are fetched once per URL and cached.
 */
export const snsMessageSchema = z.object({
  Type: z.enum(["Notification", "SubscriptionConfirmation", "UnsubscribeConfirmation"]),
  MessageId: z.string(),
  TopicArn: z.string(),
  Message: z.string(),
  Timestamp: z.string(),
  SignatureVersion: z.enum(["1", "2"]),
  Signature: z.string(),
  SigningCertURL: z.url(),
  Subject: z.string().nullable().optional(),
  SubscribeURL: z.url().optional(),
  Token: z.string().optional(),
  UnsubscribeURL: z.string().optional(),
});
export type SnsMessage = z.infer<typeof snsMessageSchema>;

const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

export function isSnsUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === "https:" && SNS_HOST.test(u.hostname);
  } catch {
    return false;
  }
}

/** The string SNS signs, from the message's fields in their fixed order. */
export function stringToSign(m: SnsMessage): string {
  const fields =
    m.Type === "Notification"
      ? (["Message", "MessageId", ...(m.Subject ? ["Subject"] : []), "Timestamp", "TopicArn", "Type"] as const)
      : (["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"] as const);
  const values = m as unknown as Record<string, string | null | undefined>;
  return fields.map((f) => `${f}\n${values[f] ?? ""}\n`).join("");
}

const certificates = new Map<string, string>();

/** Records a certificate for a signing URL (the fetch below fills this cache). */
export function cacheSigningCertificate(url: string, pem: string): void {
  new X509Certificate(pem); // refuse what is not a certificate
  certificates.set(url, pem);
}

async function certificateFor(url: string): Promise<string> {
  const cached = certificates.get(url);
  if (cached) return cached;
  if (!isSnsUrl(url)) throw new Error(`SigningCertURL ${url} is not an SNS certificate URL`);
  const res = await outboundFetch(url, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`fetching the SNS certificate failed: ${res.status}`);
  const pem = await res.text();
  cacheSigningCertificate(url, pem);
  return pem;
}

/** True when the message's signature verifies against its SNS certificate. */
export async function verifySnsMessage(m: SnsMessage): Promise<boolean> {
  let pem: string;
  try {
    pem = await certificateFor(m.SigningCertURL);
  } catch {
    return false;
  }
  const verifier = createVerify(m.SignatureVersion === "2" ? "RSA-SHA256" : "RSA-SHA1");
  verifier.update(stringToSign(m), "utf8");
  try {
    return verifier.verify(new X509Certificate(pem).publicKey, m.Signature, "base64");
  } catch {
    return false;
  }
}
