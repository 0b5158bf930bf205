import { and, eq } from "drizzle-orm";
import { decodeProtectedHeader } from "jose";
import type { DbOrTx } from "@/db";
import { agents } from "@/db/schema";
import { publicBaseUrl } from "@/lib/env";
import { verifyArtifact } from "@/lib/trust/artifact";
import { findSigningKey, jwksKeyOf, serviceSigner, type SigningKeyRow } from "@/lib/trust/keys";
import { localJwks } from "./inbound";
import { agentUuid } from "./agent";
import { type DeliveredContent, PROVENANCE_HEADER, type ProvenanceClaims, verifyProvenance } from "./provenance";

/** `GET /v1/agents/jwks`: every active key (the service's artifact key made on first use), service key first. */
export async function agentsJwks(db: DbOrTx) {
  await serviceSigner(db);
  return localJwks(db);
}

type Reason =
  | "malformed"
  | "unsigned"
  | "unknown_key"
  | "bad_signature"
  | "wrong_issuer"
  | "wrong_agent"
  | "body_mismatch"
  | "key_revoked"
  | "no_provenance";

async function signerOf(db: DbOrTx, key: SigningKeyRow) {
  if (key.purpose === "service")
    return { type: "service" as const, agentId: null, display: null, status: null, keyStatus: key.status };
  const id = key.agentId ? agentUuid(key.agentId) : null;
  const [agent] = id
    ? await db
        .select()
        .from(agents)
        .where(and(eq(agents.id, id)))
    : [];
  return {
    type: "agent" as const,
    agentId: key.agentId,
    display: agent?.display ?? null,
    status: agent?.status ?? null,
    keyStatus: key.status,
  };
}

/** The `X-Svc-Provenance` header of a raw message (the first one, unfolded), or null. */
export function provenanceHeaderOf(raw: string): string | null {
  const end = raw.search(/\r?\n\r?\n/);
  const head = (end < 0 ? raw : raw.slice(0, end)).replace(/\r?\n[ \t]+/g, " ");
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${PROVENANCE_HEADER.toLowerCase()}:`));
  return line ? line.slice(PROVENANCE_HEADER.length + 1).trim() : null;
}

/**
 * `POST /v1/agents/verify`: a provenance token (optionally with the body it covers) or a signed
 * artifact, checked against this deployment's keys by `kid` — any status, so a revoked key's
 * signer is still named — and answered with the signer and its status now.
 */
export async function verifySignature(
  db: DbOrTx,
  input: { provenance?: string; message?: string; content?: DeliveredContent; artifact?: Record<string, unknown> },
) {
  const verdict = (
    type: "provenance" | "artifact",
    reason: Reason | null,
    kid: string | null,
    signer: Awaited<ReturnType<typeof signerOf>> | null,
    claims: ProvenanceClaims | null,
    bodyChecked: boolean,
  ) => ({
    valid: reason === null,
    type,
    reason,
    kid,
    signer,
    claims,
    bodyChecked,
  });
  if (input.artifact) {
    const kid = typeof input.artifact.kid === "string" ? input.artifact.kid : null;
    const key = kid ? await findSigningKey(db, kid) : null;
    const signer = key ? await signerOf(db, key) : null;
    const check = verifyArtifact(input.artifact, key ? [jwksKeyOf(key)] : []);
    if (!check.valid) return verdict("artifact", check.reason, check.kid, signer, null, false);
    return verdict("artifact", key?.status === "revoked" ? "key_revoked" : null, check.kid, signer, null, false);
  }
  const raw = input.message;
  const token = input.provenance ?? (raw !== undefined ? provenanceHeaderOf(raw) : null);
  if (!token) return verdict("provenance", "no_provenance", null, null, null, false);
  let kid: string | null = null;
  try {
    const h = decodeProtectedHeader(token);
    kid = typeof h.kid === "string" ? h.kid : null;
  } catch {
    return verdict("provenance", "malformed", null, null, null, false);
  }
  const key = kid ? await findSigningKey(db, kid) : null;
  if (!key) return verdict("provenance", kid ? "unknown_key" : "malformed", kid, null, null, false);
  const signer = await signerOf(db, key);
  const body =
    raw !== undefined ? { raw: Buffer.from(raw, "utf8") } : input.content ? { content: input.content } : undefined;
  const result = await verifyProvenance(token, { keys: { keys: [jwksKeyOf(key)] }, issuer: publicBaseUrl(), body });
  if (!result.valid) {
    const reason: Reason = result.reason === "jwks_unavailable" ? "unknown_key" : result.reason;
    return verdict(
      "provenance",
      reason,
      kid,
      signer,
      result.claims && reason !== "bad_signature" && reason !== "malformed" ? result.claims : null,
      body !== undefined,
    );
  }
  // The key signs for one agent only: a token naming another is not that agent's.
  const reason: Reason | null =
    key.purpose !== "agent" || key.agentId !== result.claims.sub
      ? "wrong_agent"
      : key.status === "revoked"
        ? "key_revoked"
        : null;
  return verdict("provenance", reason, kid, signer, result.claims, body !== undefined);
}
