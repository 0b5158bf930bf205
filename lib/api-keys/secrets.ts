import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** `svc_live_` or `svc_test_` followed by 40 base62 characters (~238 bits). */
export const SECRET_PATTERN = /^svc_(live|test)_[A-Za-z0-9]{40}$/;
/** Characters of the secret kept in clear as the displayed prefix (`svc_live_` + 8). */
export const PREFIX_LENGTH = 17;

export type KeyEnvironment = "live" | "test";

export function generateSecret(environment: KeyEnvironment): string {
  let body = "";
  // 248 is the largest multiple of 62 below 256; rejection sampling keeps the alphabet uniform.
  while (body.length < 40) {
    for (const b of randomBytes(48)) if (b < 248 && body.length < 40) body += ALPHABET[b % 62];
  }
  return `svc_${environment}_${body}`;
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export const secretPrefix = (secret: string) => secret.slice(0, PREFIX_LENGTH);

/** Constant-time comparison of a presented secret's hash (`hashSecret`) against a stored hash. */
export function hashMatches(hash: string, storedHash: string): boolean {
  const a = Buffer.from(hash, "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
