import { sign, verify, type KeyObject } from "node:crypto";
import { jcs } from "./jcs";
import { type Jwks, type JwksKey, publicKeyOf } from "./jwk";

/**
 * SignedArtifact (the specification's): any JSON object plus `alg`, `kid` and `signature`, where
 * `signature` is Ed25519 over the RFC 8785 (JCS) form of every other field — `alg` and `kid`
 * included, so the key named is part of what is signed — encoded base64url without padding.
 * Audit export manifests and deletion certificates are signed artifacts; they verify against the
 * JWKS (`kid`) with nothing but an Ed25519 implementation and a JCS serializer. Pure (no database):
 * the offline verifier uses it; `signArtifact` in keys.ts signs with the service key.
 */
export type SignatureFields = {
  alg: "EdDSA" | null;
  kid: string | null;
  signature: string | null;
};

export type Signed<T> = T & SignatureFields;

/** The exact bytes the signature covers: JCS of the artifact without `signature`. */
export function signingInput(artifact: object): Buffer {
  const rest: Record<string, unknown> = { ...(artifact as Record<string, unknown>) };
  delete rest.signature;
  return Buffer.from(jcs(rest), "utf8");
}

export function signArtifactWith<T extends Record<string, unknown>>(
  signer: { kid: string; privateKey: KeyObject },
  fields: T,
): Signed<T> {
  for (const k of ["alg", "kid", "signature"]) if (k in fields) throw new Error(`artifact field ${k} is reserved`);
  const unsigned = { ...fields, alg: "EdDSA" as const, kid: signer.kid };
  const signature = sign(null, signingInput(unsigned), signer.privateKey).toString("base64url");
  return { ...unsigned, signature };
}

export type ArtifactCheck =
  | { valid: true; kid: string }
  | { valid: false; kid: string | null; reason: "unsigned" | "malformed" | "unknown_key" | "bad_signature" };

/** Checks an artifact's signature against a set of JWKS keys (by `kid`). */
export function verifyArtifact(artifact: unknown, keys: JwksKey[] | Jwks): ArtifactCheck {
  if (!artifact || typeof artifact !== "object" || Array.isArray(artifact))
    return { valid: false, kid: null, reason: "malformed" };
  const a = artifact as Record<string, unknown>;
  const kid = typeof a.kid === "string" ? a.kid : null;
  if (a.signature === null || a.alg === null) return { valid: false, kid, reason: "unsigned" };
  if (a.alg !== "EdDSA" || !kid || typeof a.signature !== "string" || !/^[A-Za-z0-9_-]{86}$/.test(a.signature))
    return { valid: false, kid, reason: "malformed" };
  const key = (Array.isArray(keys) ? keys : keys.keys).find((k) => k.kid === kid);
  if (!key) return { valid: false, kid, reason: "unknown_key" };
  let input: Buffer;
  let publicKey: KeyObject;
  try {
    input = signingInput(a);
    publicKey = publicKeyOf(key);
  } catch {
    return { valid: false, kid, reason: "malformed" };
  }
  return verify(null, input, publicKey, Buffer.from(a.signature, "base64url"))
    ? { valid: true, kid }
    : { valid: false, kid, reason: "bad_signature" };
}
