import { createPublicKey, type KeyObject } from "node:crypto";

/**
 * Public Ed25519 keys as JWKS entries. Pure (no database, no environment): the offline verifier
 * uses it too.
 */

/** A JWKS entry exactly as the specification's JWKS key. */
export interface JwksKey {
  kty: "OKP";
  crv: "Ed25519";
  alg: "EdDSA";
  kid: string;
  x: string;
  use: "sig";
}

export interface Jwks {
  keys: JwksKey[];
}

export const jwksKey = (kid: string, x: string): JwksKey => ({
  kty: "OKP",
  crv: "Ed25519",
  alg: "EdDSA",
  kid,
  x,
  use: "sig",
});

/** Public keys already made, by `x` (an agent's send verifies its own token with the same key each time). */
const publicKeys = new Map<string, KeyObject>();
const PUBLIC_KEYS_MAX = 1024;

/** A Node public key from a JWKS entry (or any Ed25519 public JWK), made once per key; throws on anything else. */
export function publicKeyOf(jwk: { kty?: unknown; crv?: unknown; x?: unknown }): KeyObject {
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(jwk.x))
    throw new Error("not an Ed25519 public key");
  const known = publicKeys.get(jwk.x);
  if (known) return known;
  const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" });
  if (publicKeys.size >= PUBLIC_KEYS_MAX) publicKeys.clear();
  publicKeys.set(jwk.x, key);
  return key;
}

/** The same key as SubjectPublicKeyInfo PEM (what `openssl pkeyutl -verify -pubin` reads). */
export const publicKeyPem = (jwk: { kty?: unknown; crv?: unknown; x?: unknown }): string =>
  publicKeyOf(jwk).export({ format: "pem", type: "spki" }).toString();
