import type { DbOrTx } from "@/db";
import { deliveredContent, signAsAgent, agentSigner } from "@/lib/agents/signing";
import { agentPublicId } from "@/lib/agents/agent";
import { uuidv7 } from "@/db/ids";
import { log } from "@/lib/log";
import { newMessageId } from "../mime";
import type { AttachedSend, SignedSend } from "./draft";

/**
 * Stage 6: the wire form for the external recipients, signed (email: MIME with DKIM), under the
 * message's Message-ID and id (kept across attempts: a scheduled message brings its own), and —
 * when the send is an agent's — the agent's `X-Svc-Provenance` token over the body as sent (in the
 * wire form's header block, and kept for the stored rows). A failure here stores the send
 * `failed` with the reason.
 */
export async function signSend(
  db: DbOrTx,
  a: AttachedSend,
  existing: { id: string; messageIdHeader: string } | null = null,
): Promise<SignedSend> {
  const id = existing?.messageIdHeader ?? newMessageId(a.inbox.address.split("@")[1] ?? "localhost");
  const external = a.recipients.filter((r) => !a.internal.has(r));
  const signed: SignedSend = {
    ...a,
    messageId: existing?.id ?? uuidv7(),
    messageIdHeader: id,
    external,
    wire: null,
    error: null,
    provenance: null,
    provenanceVerified: false,
  };
  let wire: Buffer | null = null;
  try {
    if (external.length > 0) wire = await a.channel.compose(db, signed);
  } catch (err) {
    log.warn("outbound message could not be composed", {
      inboxId: a.inbox.id,
      err: err instanceof Error ? err.message : String(err),
    });
    return { ...signed, error: "compose_failed" };
  }
  if (!a.agent) return { ...signed, wire };
  try {
    const signer = await agentSigner(db, a.agent);
    if (!signer) throw new Error(`agent ${agentPublicId(a.agent.id)} has no active signing key`);
    const p = await signAsAgent(signer, a.agent, {
      messageId: signed.messageId,
      rfcMessageId: id,
      channel: a.channel.id,
      wire,
      content: deliveredContent(a),
    });
    return { ...signed, wire: p.wire, provenance: p.token, provenanceVerified: p.verified };
  } catch (err) {
    log.warn("agent provenance could not be signed", {
      inboxId: a.inbox.id,
      err: err instanceof Error ? err.message : String(err),
    });
    return { ...signed, error: "provenance_failed" };
  }
}
