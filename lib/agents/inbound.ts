import { decodeJwt } from "jose";
import type { DbOrTx } from "@/db";
import { publicBaseUrl } from "@/lib/env";
import { jwksKeyOf, listSigningKeys } from "@/lib/trust/keys";
import { type ProvenanceResult, remoteJwks, verifyProvenance } from "./provenance";

/** The `channelMetadata` keys an inbound email's provenance check leaves (none when it carried no token). */
export interface InboundProvenance {
  provenance?: string;
  provenanceVerified?: boolean;
  provenanceAgentId?: string | null;
  provenanceIssuer?: string | null;
  provenanceError?: string | null;
}

/** This deployment's published keys (what `GET /v1/agents/jwks` serves). */
export async function localJwks(db: DbOrTx) {
  return { keys: (await listSigningKeys(db, ["active"])).map(jwksKeyOf) };
}

/**
 * Verifies the `X-Svc-Provenance` token of an inbound email, when it has one: the signature against
 * the issuer's JWKS (this deployment's own keys when the issuer is this deployment, else fetched
 * from `<iss>/v1/agents/jwks` through the SSRF-guarded client), the body hash against the raw
 * message as received, and the token's `mid` against the message's Message-ID (a token lifted onto
 * another message fails). The token is kept whatever the verdict; the verdict says why not.
 */
export async function inboundProvenance(
  db: DbOrTx,
  raw: Buffer,
  header: unknown,
  messageId: string | undefined,
): Promise<InboundProvenance> {
  if (typeof header !== "string" || header.trim() === "") return {};
  const token = header.trim().slice(0, 4096);
  let issuer: string | null = null;
  try {
    const iss = decodeJwt(token).iss;
    if (typeof iss === "string" && /^https?:$/.test(new URL(iss).protocol)) issuer = iss;
  } catch {
    issuer = null;
  }
  const verdict = (r: ProvenanceResult | { valid: false; reason: string }): InboundProvenance => ({
    provenance: token,
    provenanceVerified: r.valid,
    provenanceAgentId: r.valid ? r.claims.sub : null,
    provenanceIssuer: r.valid ? r.claims.iss : null,
    provenanceError: r.valid ? null : r.reason,
  });
  if (!issuer) return verdict({ valid: false, reason: "malformed" });
  const keys = issuer.replace(/\/+$/, "") === publicBaseUrl() ? await localJwks(db) : remoteJwks(issuer);
  const result = await verifyProvenance(token, { keys, issuer, body: { raw } });
  if (result.valid && result.claims.mid !== messageId) return verdict({ valid: false, reason: "message_id_mismatch" });
  return verdict(result);
}
