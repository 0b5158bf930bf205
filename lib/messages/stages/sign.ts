import type { DbOrTx } from "@/db";
import { log } from "@/lib/log";
import { newMessageId } from "../mime";
import type { ApprovedSend, SignedSend } from "./draft";

/**
 * Stage 5: the wire form for the external recipients, signed (email: MIME with DKIM; agent
 * provenance will sign here), under the message's Message-ID (kept across attempts: a scheduled
 * message brings its own). A failure here stores the send `failed` with the reason.
 */
export async function signSend(db: DbOrTx, a: ApprovedSend, messageIdHeader: string | null = null): Promise<SignedSend> {
  const id = messageIdHeader ?? newMessageId(a.inbox.address.split("@")[1] ?? "localhost");
  const external = a.recipients.filter((r) => !a.internal.has(r));
  const signed: SignedSend = { ...a, messageIdHeader: id, external, wire: null, error: null };
  if (external.length === 0) return signed;
  try {
    return { ...signed, wire: await a.channel.compose(db, signed) };
  } catch (err) {
    log.warn("outbound message could not be composed", { inboxId: a.inbox.id, err: err instanceof Error ? err.message : String(err) });
    return { ...signed, error: "compose_failed" };
  }
}
