import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { signingKeys } from "@/db/schema";
import { publicBaseUrl } from "@/lib/env";
import { jwksKeyOf, signerFor, type Signer } from "@/lib/trust/keys";
import {
  contentBodyHash,
  type DeliveredContent,
  emailBodyHash,
  PROVENANCE_HEADER,
  signProvenance,
  verifyProvenance,
} from "./provenance";
import { agentPublicId, type AgentRow } from "./agent";

/** The agent's active signing key, opened; null when it has none (a revoked agent). */
export async function agentSigner(db: DbOrTx, agent: AgentRow): Promise<Signer | null> {
  const [row] = await db
    .select()
    .from(signingKeys)
    .where(
      and(
        eq(signingKeys.purpose, "agent"),
        eq(signingKeys.agentId, agentPublicId(agent.id)),
        eq(signingKeys.status, "active"),
      ),
    )
    .limit(1);
  return row ? signerFor(db, row) : null;
}

/** What an agent's message says, in the form `content/jcs` hashes. */
export function deliveredContent(m: {
  subject: string;
  text: string | null;
  html: string | null;
  files: { filename: string | null; contentType: string; content: Buffer }[];
}): DeliveredContent {
  return {
    subject: m.subject,
    text: m.text,
    html: m.html,
    attachments: m.files.map((f) => ({
      filename: f.filename ?? "attachment",
      contentType: f.contentType,
      sha256: createHash("sha256").update(f.content).digest("hex"),
    })),
  };
}

export interface Provenance {
  /** The compact JWS. */
  token: string;
  /** The wire form with the `X-Svc-Provenance` header, when there is a wire form. */
  wire: Buffer | null;
  /** The token verified against the signer's published key and the body (what the a2a recipient's copy records). */
  verified: boolean;
}

/**
 * Signs a message as an agent (lib/agents/provenance.ts has the format). With an RFC 5322 wire
 * form the body hash covers its body as sent (`mime-body/simple`) and the header is prepended to
 * the header block — after DKIM signed it, which leaves the DKIM signature intact (the token is
 * bound to the Message-ID and body by its own claims); without one, the delivered content
 * (`content/jcs`).
 */
export async function signAsAgent(
  signer: Signer,
  agent: AgentRow,
  m: { messageId: string; rfcMessageId: string; channel: string; wire: Buffer | null; content: DeliveredContent },
): Promise<Provenance> {
  const base = {
    issuer: publicBaseUrl(),
    agentId: agentPublicId(agent.id),
    messageId: m.messageId,
    rfcMessageId: m.rfcMessageId,
    channel: m.channel,
  };
  const token = m.wire
    ? await signProvenance(signer, {
        ...base,
        bodyCanonicalization: "mime-body/simple",
        bodyHash: emailBodyHash(m.wire),
      })
    : await signProvenance(signer, {
        ...base,
        bodyCanonicalization: "content/jcs",
        bodyHash: contentBodyHash(m.content),
      });
  const wire = m.wire ? Buffer.concat([Buffer.from(`${PROVENANCE_HEADER}: ${token}\r\n`), m.wire]) : null;
  const check = await verifyProvenance(token, {
    keys: { keys: [jwksKeyOf(signer)] },
    issuer: base.issuer,
    body: wire ? { raw: wire } : { content: m.content },
  });
  return { token, wire, verified: check.valid };
}
