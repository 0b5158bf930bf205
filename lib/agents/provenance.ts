import { createHash } from "node:crypto";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  decodeProtectedHeader,
  errors,
  type JWTVerifyGetKey,
  jwtVerify,
  SignJWT,
} from "jose";
import { jcs } from "@/lib/trust/jcs";
import type { JwksKey } from "@/lib/trust/jwk";
import type { Signer } from "@/lib/trust/keys";
import { outboundFetch } from "@/lib/providers/http";
import { loopbackAllowed, webhookUrlProblem } from "@/lib/webhooks/url-guard";

/**
 * Agent provenance: the `X-Svc-Provenance` header, a compact JWS (RFC 7515) signed with the
 * agent's Ed25519 key.
 *
 * Protected header: `{"alg":"EdDSA","kid":<kid in the JWKS>,"typ":"svc-provenance+jwt"}`.
 * Claims:
 *   iss  the issuing deployment's public base URL (its JWKS is `<iss>/v1/agents/jwks`)
 *   sub  the agent passport id, `agt_…`
 *   iat  issue time, seconds since the epoch
 *   msg  this service's message id (uuid)
 *   mid  the RFC 5322 Message-ID, angle brackets included (`<…@…>`)
 *   ch   the channel (`email`, `a2a`, …)
 *   bhc  which bytes `bh` covers (below)
 *   bh   base64url (no padding) SHA-256 of those bytes
 *
 * The body as sent (`bhc`):
 *   `mime-body/simple` (email): the body of the RFC 5322 message handed to the transport — every
 *     byte after the empty line that ends the header block — with DKIM "simple" body
 *     canonicalization (RFC 6376 §3.4.3), tolerant of LF-only line ends: lines are split on CRLF
 *     or LF and rejoined with CRLF, trailing empty lines are dropped, and the result ends in one
 *     CRLF (an empty body is a single CRLF). The provenance header itself sits in the header block,
 *     so adding it does not change the hash; a relay that re-encodes the body does, which is the
 *     point.
 *   `content/jcs` (a2a and other channels without MIME): the UTF-8 bytes of the RFC 8785 (JCS)
 *     form of `{"subject","text","html","attachments"}` as delivered — absent parts null,
 *     `attachments` a list of `{"filename","contentType","sha256"}` (hex digest of the bytes), in
 *     the order sent.
 */

export const PROVENANCE_HEADER = "X-Svc-Provenance";
export const PROVENANCE_TYP = "svc-provenance+jwt";

export type BodyCanonicalization = "mime-body/simple" | "content/jcs";

export interface ProvenanceClaims {
  iss: string;
  sub: string;
  iat: number;
  msg: string;
  mid: string;
  ch: string;
  bhc: BodyCanonicalization;
  bh: string;
}

const sha256b64u = (data: Buffer | string) => createHash("sha256").update(data).digest("base64url");

/** The body of a raw RFC 5322 message (after the first empty line), or "" when it has none. */
export function mimeBody(raw: Buffer | string): Buffer {
  const buf = Buffer.isBuffer(raw) ? raw : Buffer.from(raw, "utf8");
  const crlf = buf.indexOf("\r\n\r\n");
  const lf = buf.indexOf("\n\n");
  if (crlf < 0 && lf < 0) return Buffer.alloc(0);
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return buf.subarray(crlf + 4);
  return buf.subarray(lf + 2);
}

/** DKIM "simple" body canonicalization with LF-only line ends accepted (see above). */
export function canonicalMimeBody(body: Buffer): Buffer {
  const lines = body.toString("latin1").split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return Buffer.from(`${lines.join("\r\n")}\r\n`, "latin1");
}

/** `bh` for an email: the hash of the canonical body of the raw message as sent. */
export const emailBodyHash = (rawMessage: Buffer | string): string =>
  sha256b64u(canonicalMimeBody(mimeBody(rawMessage)));

export interface DeliveredContent {
  subject: string | null;
  text: string | null;
  html: string | null;
  attachments?: { filename: string; contentType: string; sha256: string }[];
}

/** The exact bytes `content/jcs` covers. */
export const contentBytes = (c: DeliveredContent): string =>
  jcs({
    subject: c.subject ?? null,
    text: c.text ?? null,
    html: c.html ?? null,
    attachments: (c.attachments ?? []).map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      sha256: a.sha256,
    })),
  });

/** `bh` for a message without MIME. */
export const contentBodyHash = (c: DeliveredContent): string => sha256b64u(contentBytes(c));

export interface ProvenanceInput {
  issuer: string;
  agentId: string;
  messageId: string;
  rfcMessageId: string;
  channel: string;
  bodyCanonicalization: BodyCanonicalization;
  bodyHash: string;
  issuedAt?: Date;
}

/** Signs the provenance token with an agent's key. */
export async function signProvenance(signer: Signer, input: ProvenanceInput): Promise<string> {
  const claims: Omit<ProvenanceClaims, "iss" | "sub" | "iat"> = {
    msg: input.messageId,
    mid: input.rfcMessageId,
    ch: input.channel,
    bhc: input.bodyCanonicalization,
    bh: input.bodyHash,
  };
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: "EdDSA", kid: signer.kid, typ: PROVENANCE_TYP })
    .setIssuer(input.issuer)
    .setSubject(input.agentId)
    .setIssuedAt(Math.floor((input.issuedAt ?? new Date()).getTime() / 1000))
    .sign(signer.privateKey);
}

export type ProvenanceResult =
  | { valid: true; kid: string; claims: ProvenanceClaims; bodyMatches: boolean | null }
  | {
      valid: false;
      kid: string | null;
      reason: "malformed" | "unknown_key" | "bad_signature" | "wrong_issuer" | "body_mismatch" | "jwks_unavailable";
      claims?: ProvenanceClaims;
    };

export interface VerifyOptions {
  /** The keys to trust: a JWKS, or a resolver (e.g. `remoteJwks(issuer)`). */
  keys: { keys: JwksKey[] } | JWTVerifyGetKey;
  /** Require this issuer. */
  issuer?: string;
  /** The body as received, to recompute `bh`: a raw RFC 5322 message, or the delivered content. */
  body?: { raw: Buffer | string } | { content: DeliveredContent };
}

const CLAIMS_OK = (p: Record<string, unknown>): p is ProvenanceClaims & Record<string, unknown> =>
  typeof p.iss === "string" &&
  typeof p.sub === "string" &&
  /^agt_[A-Za-z0-9]+$/.test(p.sub) &&
  typeof p.iat === "number" &&
  typeof p.msg === "string" &&
  typeof p.mid === "string" &&
  typeof p.ch === "string" &&
  (p.bhc === "mime-body/simple" || p.bhc === "content/jcs") &&
  typeof p.bh === "string" &&
  /^[A-Za-z0-9_-]{43}$/.test(p.bh);

/** Verifies a provenance token's signature, shape, issuer and (given the body) body hash. */
export async function verifyProvenance(token: string, options: VerifyOptions): Promise<ProvenanceResult> {
  let kid: string | null = null;
  try {
    const header = decodeProtectedHeader(token);
    kid = typeof header.kid === "string" ? header.kid : null;
    if (header.alg !== "EdDSA" || !kid || header.typ !== PROVENANCE_TYP)
      return { valid: false, kid, reason: "malformed" };
  } catch {
    return { valid: false, kid, reason: "malformed" };
  }
  const getKey = typeof options.keys === "function" ? options.keys : createLocalJWKSet(options.keys);
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, getKey, { algorithms: ["EdDSA"], typ: PROVENANCE_TYP }));
  } catch (e) {
    if (e instanceof errors.JWKSNoMatchingKey) return { valid: false, kid, reason: "unknown_key" };
    if (e instanceof errors.JWSSignatureVerificationFailed) return { valid: false, kid, reason: "bad_signature" };
    // The key set could not be had (fetch refused or failed, timeout, not a JWKS).
    if (e instanceof errors.JWKSTimeout || e instanceof errors.JWKSInvalid || !(e instanceof errors.JOSEError))
      return { valid: false, kid, reason: "jwks_unavailable" };
    return { valid: false, kid, reason: "malformed" };
  }
  if (!CLAIMS_OK(payload)) return { valid: false, kid, reason: "malformed" };
  const claims: ProvenanceClaims = {
    iss: payload.iss,
    sub: payload.sub,
    iat: payload.iat,
    msg: payload.msg,
    mid: payload.mid,
    ch: payload.ch,
    bhc: payload.bhc,
    bh: payload.bh,
  };
  if (options.issuer !== undefined && claims.iss !== options.issuer)
    return { valid: false, kid, reason: "wrong_issuer", claims };
  let bodyMatches: boolean | null = null;
  if (options.body) {
    const expected =
      "raw" in options.body
        ? claims.bhc === "mime-body/simple"
          ? emailBodyHash(options.body.raw)
          : null
        : claims.bhc === "content/jcs"
          ? contentBodyHash(options.body.content)
          : null;
    bodyMatches = expected === claims.bh;
    if (!bodyMatches) return { valid: false, kid, reason: "body_mismatch", claims };
  }
  return { valid: true, kid, claims, bodyMatches };
}

/** The JWKS address of a deployment named by a provenance issuer. */
export const jwksUrlOf = (issuer: string): URL => new URL(`${issuer.replace(/\/+$/, "")}/v1/agents/jwks`);

const remote = new Map<string, JWTVerifyGetKey>();

/**
 * A resolver over another deployment's published JWKS, fetched through the SSRF guard (public
 * https addresses only), cached per issuer (jose: 10 minutes, refetched on an unknown kid at most
 * every 30 s).
 */
export function remoteJwks(issuer: string): JWTVerifyGetKey {
  const url = jwksUrlOf(issuer);
  const existing = remote.get(url.href);
  if (existing) return existing;
  const resolver = createRemoteJWKSet(url, {
    timeoutDuration: 5000,
    [customFetch]: async (href, init) => {
      const problem = await webhookUrlProblem(href);
      if (problem) throw new Error(`JWKS URL ${problem}`);
      return outboundFetch(href, { ...init, allowLoopback: loopbackAllowed() });
    },
  });
  if (remote.size > 1000) remote.clear();
  remote.set(url.href, resolver);
  return resolver;
}
