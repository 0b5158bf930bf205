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

/** A Node public key from a JWKS entry (or any Ed25519 public JWK); throws on anything else. */
export function publicKeyOf(jwk: { kty?: unknown; crv?: unknown; x?: unknown }): KeyObject {
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(jwk.x))
    throw new Error("not an Ed25519 public key");
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" });
}

/** The same key as SubjectPublicKeyInfo PEM (what `openssl pkeyutl -verify -pubin` reads). */
export const publicKeyPem = (jwk: { kty?: unknown; crv?: unknown; x?: unknown }): string =>
  publicKeyOf(jwk).export({ format: "pem", type: "spki" }).toString();
