import { ApiError } from "@/lib/core/errors";
import type { DbOrTx } from "@/db";
import { deliveredContent, signAsAgent, agentSigner } from "@/lib/agents/signing";
import { agentPublicId } from "@/lib/agents/agent";
import { uuidv7 } from "@/db/ids";
import { log } from "@/lib/log";
import { senderOf } from "@/lib/channels";
import type { OutboundDraft } from "@/lib/channels/port";
import type { AttachedSend, SignedSend } from "./draft";

/** The send as its channel sees it (the port's neutral draft). */
export function outboundDraft(s: SignedSend): OutboundDraft {
  // The channel's own request options (its definition's `options`), as the request gave them.
  const input = s.input as Record<string, unknown>;
  const own = Object.keys(s.channel.options.shape).filter((k) => input[k] !== undefined);
  return {
    channel: s.channel.id,
    messageId: s.messageId,
    messageKey: s.messageIdHeader,
    from: { ...senderOf(s.inbox), domain: s.reads?.domain },
    to: s.to,
    cc: s.cc,
    bcc: s.bcc,
    external: s.external,
    content: {
      subject: s.subject,
      text: s.text,
      html: s.html,
      media: s.files.map((f) => ({ filename: f.filename, contentType: f.contentType, content: f.content })),
    },
    thread: { inReplyTo: s.inReplyTo, references: s.references },
    options: { ...Object.fromEntries(own.map((k) => [k, input[k]])), headers: s.headers, replyTo: s.replyTo },
  };
}

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
  const id = existing?.messageIdHeader ?? a.channel.messageKey(senderOf(a.inbox));
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
    if (external.length > 0) wire = await a.channel.compose(db, outboundDraft(signed));
  } catch (err) {
    // The channel refused the request itself (a Telegram send from an inbox without a bot): 400.
    if (err instanceof ApiError) throw err;
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
