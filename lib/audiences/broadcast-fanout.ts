import { and, asc, eq, gt, inArray, lte, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { audienceMembers, broadcasts, inboxes, messages, suppressions } from "@/db/schema";
import { type BudgetSubject } from "@/lib/budgets/enforce";
import { evaluateAgents } from "@/lib/agents/reputation";
import { findAgentById } from "@/lib/agents/agent";
import { channelAdapter } from "@/lib/channels";
import { INBOX_ADDRESS_CHANNEL } from "@/lib/channels/definitions";
import { inboxesByAddress } from "@/lib/inboxes/service";
import { systemPrincipal } from "@/lib/messages/send";
import type { AttachedSend, LinkedObject, SignedSend } from "@/lib/messages/stages/draft";
import { type RenderedBody } from "@/lib/messages/stages/render";
import { signSend } from "@/lib/messages/stages/sign";
import { isPlainSend, storePlainSendsInTx, storeSendInTx } from "@/lib/messages/stages/store";
import { kickOutboxRelay } from "@/lib/outbox/relay";
import { registerFanoutKind } from "@/lib/workflows/fanout";
import { unsubscribeHeaders, unsubscribeSigner } from "./unsubscribe";

// The `broadcast` fan-out kind, registered with the primitive when this module loads: its source
// (members by address) and its sink (one message per member). What it does: lib/audiences/broadcast.ts.

export const BROADCAST_KIND = "broadcast";

/** What every member's message says, rendered once when the broadcast is queued. */
export interface BroadcastContent extends RenderedBody {
  headers: Record<string, string>;
  tags: Record<string, string>;
  ignoreComplaints: boolean;
  /** Whom the members' sends count against (budgets: lib/budgets/enforce.ts). */
  budgetSubject: BudgetSubject;
  /** The agent the broadcast is made as (its key's or inbox's binding when queued): its messages carry its provenance. */
  agentId: string | null;
  attachments: {
    filename: string | null;
    contentType: string;
    contentBase64: string;
    disposition: "attachment" | "inline";
  }[];
  /** Stored objects that go by share link (already in the body). */
  linked: LinkedObject[];
}

type Member = { key: string; data: Record<string, unknown> };

/** Members' sends signed at once by a chunk (no agent). */
const SIGN_PARALLEL = 8;

/** `signSend` of each send, the first alone, then up to `parallel` at once; in the order given. */
async function signInTurn(tx: DbOrTx, sends: AttachedSend[], parallel: number): Promise<SignedSend[]> {
  const [first, ...rest] = sends;
  if (!first) return [];
  const out = [await signSend(tx, first)];
  let next = 0;
  const work = async () => {
    for (let i = next++; i < rest.length; i = next++) out[i + 1] = await signSend(tx, rest[i] as AttachedSend);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, rest.length) }, work));
  return out;
}

/** Applies one chunk of members: one message each for those who still get it; returns how many. */
async function applyBroadcastChunk(tx: DbOrTx, params: Record<string, unknown>, members: Member[]): Promise<number> {
  const [b] = await tx
    .select()
    .from(broadcasts)
    .where(eq(broadcasts.id, String(params.broadcastId)));
  if (!b) return 0; // the audience (and its broadcasts) was deleted
  const content = b.content as unknown as BroadcastContent;
  const [inbox] = await tx.select().from(inboxes).where(eq(inboxes.id, b.inboxId));
  let skipped = 0;
  const principal = systemPrincipal(b.orgId, "00000000-0000-0000-0000-000000000000");
  let reach = members;
  if (!content.ignoreComplaints && reach.length > 0) {
    const suppressed = new Set(
      (
        await tx
          .select({ address: suppressions.address })
          .from(suppressions)
          .where(
            and(
              eq(suppressions.orgId, b.orgId),
              inArray(
                suppressions.address,
                reach.map((m) => m.key),
              ),
            ),
          )
      ).map((r) => r.address),
    );
    reach = reach.filter((m) => !suppressed.has(m.key));
  }
  const keyOf = (address: string) => `${b.idempotencyBase}:${address}`;
  if (reach.length > 0) {
    const done = new Set(
      (
        await tx
          .select({ key: messages.idempotencyKey })
          .from(messages)
          .where(
            and(
              eq(messages.orgId, b.orgId),
              eq(messages.direction, "outbound"),
              inArray(
                messages.idempotencyKey,
                reach.map((m) => keyOf(m.key)),
              ),
            ),
          )
      ).map((r) => r.key),
    );
    reach = reach.filter((m) => !done.has(keyOf(m.key)));
  }
  skipped += members.length - reach.length;
  const sending = inbox && inbox.status === "active" ? inbox : null;
  if (!sending) {
    // The inbox stopped sending since the broadcast was queued: the remaining members are skipped.
    skipped += reach.length;
    reach = [];
  }
  const internal = await inboxesByAddress(
    tx,
    reach.map((m) => m.key),
  );
  const sign = await unsubscribeSigner(tx);
  // The agent it was queued as; one suspended, revoked or quarantined since (its members' bounces
  // count as they arrive) makes no more messages.
  const found = content.agentId ? await findAgentById(tx, content.agentId) : null;
  const agent = found ? ((await evaluateAgents(tx, [found]))[0]?.row ?? found) : null;
  if (content.agentId && (agent?.status !== "active" || agent.reputationState === "quarantined")) {
    skipped += reach.length;
    reach = [];
  }
  const channel = channelAdapter(INBOX_ADDRESS_CHANNEL);
  const files = content.attachments.map((a) => ({
    filename: a.filename,
    contentType: a.contentType,
    content: Buffer.from(a.contentBase64, "base64"),
    disposition: a.disposition,
  }));
  if (!sending) return 0;
  const approvedOf = (m: Member): AttachedSend => {
    const address = m.key;
    return {
      input: { inboxId: b.inboxId, to: address },
      headers: { ...content.headers, ...unsubscribeHeaders(sign, String(m.data.id)) },
      tags: content.tags,
      attachments: [],
      files,
      linked: content.linked,
      sendAt: null,
      principal,
      inbox: sending,
      to: [address],
      cc: [],
      bcc: [],
      recipients: [address],
      internal: new Map([...internal].filter(([a]) => a === address)),
      inReplyTo: null,
      references: [],
      channel,
      contactId: typeof m.data.contactId === "string" ? m.data.contactId : null,
      subject: content.subject,
      text: content.text,
      html: content.html,
      replyTo: content.replyTo,
      template: content.template,
      warnings: [],
      budget: { subject: content.budgetSubject, recipients: 1, inboxId: b.inboxId, budgeted: false },
      agent,
    };
  };
  // Without an agent, signing reads nothing once the first member's send has read the domain's
  // signer (kept for the transaction): the others are signed a few at a time, their DKIM
  // signatures made in parallel on the thread pool. An agent's provenance reads its key: one at a time.
  const signed = await signInTurn(tx, reach.map(approvedOf), agent ? 1 : SIGN_PARALLEL);
  let written = 0;
  // Plain members' messages (the usual case: external, nothing attached) are stored together.
  const plain: Parameters<typeof storePlainSendsInTx>[1] = [];
  for (const send of signed) {
    const opts = { idempotencyKey: keyOf(send.to[0] ?? ""), lease: false, broadcastId: b.id };
    if (isPlainSend(send)) plain.push({ send, opts });
    else if (await storeSendInTx(tx, send, opts)) written++;
  }
  written += await storePlainSendsInTx(tx, plain);
  if (skipped > 0) {
    await tx
      .update(broadcasts)
      .set({ suppressed: sql`${broadcasts.suppressed} + ${skipped}` })
      .where(eq(broadcasts.id, b.id));
  }
  return written;
}

registerFanoutKind(BROADCAST_KIND, {
  async bounds(db, params, after, chunkSize, chunks) {
    const [b] = await db
      .select({ audienceId: broadcasts.audienceId, createdAt: broadcasts.createdAt })
      .from(broadcasts)
      .where(eq(broadcasts.id, String(params.broadcastId)));
    if (!b) return [];
    const rows = await db
      .select({ email: audienceMembers.email })
      .from(audienceMembers)
      .where(
        and(
          eq(audienceMembers.audienceId, b.audienceId),
          after === null ? undefined : gt(audienceMembers.email, after),
        ),
      )
      .orderBy(asc(audienceMembers.email))
      .limit(chunkSize * chunks);
    const out: { after: string | null; last: string }[] = [];
    let prev = after;
    for (let i = chunkSize - 1; i < rows.length + chunkSize - 1 && out.length < chunks; i += chunkSize) {
      const last = rows[Math.min(i, rows.length - 1)]?.email;
      if (last === undefined || (prev !== null && last <= prev)) break;
      out.push({ after: prev, last });
      prev = last;
    }
    return out;
  },
  async members(db, params, after, last) {
    const [b] = await db
      .select({ audienceId: broadcasts.audienceId, createdAt: broadcasts.createdAt })
      .from(broadcasts)
      .where(eq(broadcasts.id, String(params.broadcastId)));
    if (!b) return [];
    const rows = await db
      .select({ id: audienceMembers.id, email: audienceMembers.email, contactId: audienceMembers.contactId })
      .from(audienceMembers)
      .where(
        and(
          eq(audienceMembers.audienceId, b.audienceId),
          after === null ? undefined : gt(audienceMembers.email, after),
          lte(audienceMembers.email, last),
          lte(audienceMembers.createdAt, b.createdAt),
          eq(audienceMembers.status, "active"),
        ),
      )
      .orderBy(asc(audienceMembers.email));
    return rows.map((r) => ({ key: r.email, data: { id: r.id, contactId: r.contactId } }));
  },
  apply: (tx, _fanoutId, params, members) => applyBroadcastChunk(tx, params, members),
  // The chunk's messages are handed to the transport by the relay now, not at its next poll.
  committed: () => kickOutboxRelay(),
});
