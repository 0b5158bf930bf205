import { createHash } from "node:crypto";
import { and, asc, count, eq, gt, inArray, lte, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { audienceMembers, broadcasts, fanouts, inboxes, messages, suppressions } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { type BudgetSubject, checkSendBudgets } from "@/lib/budgets/enforce";
import { evaluateAgents, refuseByReputation } from "@/lib/agents/reputation";
import { findAgentById } from "@/lib/agents/agent";
import { channelAdapter } from "@/lib/channels";
import { recordAudit } from "@/lib/core/audit";
import { invalidRequest, notFound } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { inboxesByAddress, findInbox } from "@/lib/inboxes/service";
import type { SendMessageInput } from "@/lib/messages/contracts";
import { systemPrincipal } from "@/lib/messages/send";
import { attachFiles } from "@/lib/messages/stages/attach";
import type { AttachedSend, LinkedObject } from "@/lib/messages/stages/draft";
import { budgetSubjectOf, refuseInbox, sendingAgent } from "@/lib/messages/stages/policy";
import { renderBody, type RenderedBody } from "@/lib/messages/stages/render";
import { signSend } from "@/lib/messages/stages/sign";
import { storeSendInTx } from "@/lib/messages/stages/store";
import { customHeaders, decodeAttachments, refuseConflictingBody } from "@/lib/messages/stages/validate";
import { registerFanoutKind, startFanout } from "@/lib/workflows/fanout";
import type { z } from "zod";
import { type broadcastBody, PER_RECIPIENT_FIELDS } from "./contracts";
import { findAudience } from "./service";
import { unsubscribeHeaders, unsubscribeSigner } from "./unsubscribe";

/**
 * Broadcasts (spec part 8) on the fan-out primitive (lib/workflows/fanout.ts):
 *
 * - `queueBroadcast` renders the body once, counts the snapshot (active members created up to now),
 *   and in one transaction stores the broadcast, its fan-out and the audit row; the answer is 202.
 * - The `broadcast` fan-out kind pages the audience's members by address (its unique index) and
 *   applies a chunk in one transaction: members in the snapshot and still active (one who
 *   unsubscribed or was removed since is in no count but `total`), not suppressed
 *   (unless `ignoreComplaints`) and not already reached under their per-member idempotency key
 *   `{base}:{address}` each get one message — signed with their own `List-Unsubscribe` link,
 *   stored `queued` with an outbox entry the relay hands to the transport. A chunk is applied once
 *   (the primitive's proof row), so a killed and resumed broadcast reaches every member once.
 */

export const BROADCAST_KIND = "broadcast";

type BroadcastRow = typeof broadcasts.$inferSelect;
type BroadcastBody = z.infer<typeof broadcastBody>;

/** What every member's message says, rendered once when the broadcast is queued. */
interface BroadcastContent extends RenderedBody {
  headers: Record<string, string>;
  tags: Record<string, string>;
  ignoreComplaints: boolean;
  /** Whom the members' sends count against (budgets: lib/budgets/enforce.ts). */
  budgetSubject: BudgetSubject;
  /** The agent the broadcast is made as (its key's or inbox's binding when queued): its messages carry its provenance. */
  agentId: string | null;
  attachments: { filename: string | null; contentType: string; contentBase64: string; disposition: "attachment" | "inline" }[];
  /** Stored objects that go by share link (already in the body). */
  linked: LinkedObject[];
}

const PUBLIC_PREFIX = "bcast_";
export const publicBroadcastId = (id: string) => `${PUBLIC_PREFIX}${id.replace(/-/g, "")}`;

/** `bcast_<32 hex>` or the uuid itself → the uuid; null when it is neither. */
export function broadcastUuid(value: string): string | null {
  const hex = value.startsWith(PUBLIC_PREFIX) ? value.slice(PUBLIC_PREFIX.length) : value.replace(/-/g, "");
  if (!/^[0-9a-f]{32}$/i.test(hex)) return null;
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export async function queueBroadcast(db: Db, principal: Principal, audienceId: string, body: BroadcastBody, idempotencyKey: string | null) {
  for (const field of PER_RECIPIENT_FIELDS) {
    if (body[field] !== undefined) throw invalidRequest(`\`${field}\` is per recipient: a broadcast goes to each member of the audience.`, field);
  }
  const { to: _to, cc: _cc, bcc: _bcc, contactId: _contactId, channel: _channel, sendAt: _sendAt, inReplyTo: _inReplyTo, references: _references, replyToMessageId: _replyToMessageId, dryRun: _dryRun, buttons: _buttons, telegram: _telegram, ...fields } = body;
  const input: SendMessageInput = { ...fields, to: [] };
  refuseConflictingBody(input);
  const headers = customHeaders(input);
  const requested = decodeAttachments(input);
  const audience = await findAudience(db, principal.orgId, audienceId);
  const inbox = await findInbox(db, principal, input.inboxId);
  refuseInbox({ principal, inbox });
  const rendered = await renderBody(db, principal.orgId, input);
  // Stored files are fetched (and checked: owned, clean) once, now; every member's message carries the same files.
  const { files, linked } = await attachFiles(db, { principal, attachments: requested, text: rendered.text, html: rendered.html });
  // Budgets: the whole snapshot is checked now (429 budget_exceeded, budget.tripped); each member's
  // message then records its usage when it is made.
  const agent = await sendingAgent(db, { principal, inbox }, undefined);
  const budgetSubject = budgetSubjectOf(principal, agent);
  const [members] = await db
    .select({ n: count() })
    .from(audienceMembers)
    .where(and(eq(audienceMembers.audienceId, audience.id), eq(audienceMembers.status, "active")));
  await checkSendBudgets(db, budgetSubject, Number(members?.n ?? 0), inbox.id);
  // The agent's reputation, as for a send: quarantined → 403; throttled → every member's message
  // must fit in the hour's allowance (429).
  if (agent) await refuseByReputation(db, agent, new Date(), Math.max(1, Number(members?.n ?? 0)));
  const content: BroadcastContent = {
    ...rendered,
    headers,
    tags: input.tags ?? {},
    ignoreComplaints: input.ignoreComplaints ?? false,
    budgetSubject,
    agentId: agent?.id ?? null,
    attachments: files.map((f) => ({ filename: f.filename ?? null, contentType: f.contentType, contentBase64: f.content.toString("base64"), disposition: f.disposition ?? "attachment" })),
    linked,
  };
  const base =
    idempotencyKey ??
    `bcast:${createHash("sha256")
      .update(JSON.stringify([principal.orgId, audience.id, inbox.id, content.subject, content.text, content.html, content.attachments.map((a) => a.contentBase64)]))
      .digest("base64url")
      .slice(0, 32)}`;
  const { row, afterCommit } = await db.transaction(async (tx) => {
    await findAudience(tx, principal.orgId, audience.id, { lock: true });
    const snapshotAt = new Date();
    const [n] = await tx
      .select({ n: count() })
      .from(audienceMembers)
      .where(and(eq(audienceMembers.audienceId, audience.id), eq(audienceMembers.status, "active"), lte(audienceMembers.createdAt, snapshotAt)));
    const [stored] = await tx
      .insert(broadcasts)
      .values({ orgId: principal.orgId, audienceId: audience.id, inboxId: inbox.id, content: { ...content }, idempotencyBase: base, total: Number(n?.n ?? 0), createdAt: snapshotAt })
      .returning();
    if (!stored) throw new Error("broadcast insert returned nothing");
    const fanout = await startFanout(tx, { kind: BROADCAST_KIND, params: { broadcastId: stored.id }, chunkSize: env.BROADCAST_CHUNK_SIZE });
    await tx.update(broadcasts).set({ fanoutId: fanout.id }).where(eq(broadcasts.id, stored.id));
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "broadcast.queued",
      resourceType: "audience",
      resourceId: audience.id,
      metadata: { broadcastId: publicBroadcastId(stored.id), total: stored.total, template: content.template },
    });
    return { row: stored, afterCommit: fanout.afterCommit };
  });
  await afterCommit();
  return { object: "broadcast" as const, id: publicBroadcastId(row.id), audienceId: row.audienceId, status: "queued" as const };
}

export async function getBroadcast(db: DbOrTx, principal: Principal, broadcastId: string) {
  const id = broadcastUuid(broadcastId);
  const [row] = id
    ? await db
        .select({ b: broadcasts, fanoutStatus: fanouts.status, chunksDone: fanouts.chunksDone, fanoutCompletedAt: fanouts.completedAt })
        .from(broadcasts)
        .leftJoin(fanouts, eq(fanouts.id, broadcasts.fanoutId))
        .where(and(eq(broadcasts.orgId, principal.orgId), eq(broadcasts.id, id)))
    : [];
  if (!row) throw notFound("broadcast", "broadcastId");
  return { broadcast: await toBroadcast(db, row.b, { status: row.fanoutStatus, chunksDone: row.chunksDone ?? 0, completedAt: row.fanoutCompletedAt }) };
}

async function toBroadcast(db: DbOrTx, b: BroadcastRow, fanout: { status: string | null; chunksDone: number; completedAt: Date | null }) {
  const byStatus = await db
    .select({ status: messages.status, n: count() })
    .from(messages)
    .where(eq(messages.broadcastId, b.id))
    .groupBy(messages.status);
  const n = (s: string) => Number(byStatus.find((r) => r.status === s)?.n ?? 0);
  const made = byStatus.reduce((sum, r) => sum + Number(r.n), 0);
  const sent = n("sent");
  const failed = n("failed") + n("canceled");
  const planned = fanout.status === "completed";
  const pending = planned ? made - sent - failed : Math.max(0, b.total - sent - failed - b.suppressed);
  const status: "queued" | "sending" | "completed" = planned && made - sent - failed === 0 ? "completed" : fanout.chunksDone === 0 && made === 0 ? "queued" : "sending";
  const content = b.content as unknown as BroadcastContent;
  return {
    object: "broadcast" as const,
    id: publicBroadcastId(b.id),
    audienceId: b.audienceId,
    inboxId: b.inboxId,
    status: status,
    counts: { total: b.total, sent, failed, suppressed: b.suppressed, pending },
    template: content.template ?? null,
    createdAt: b.createdAt.toISOString(),
    completedAt: status === "completed" ? (fanout.completedAt?.toISOString() ?? null) : null,
  };
}

type Member = { key: string; data: Record<string, unknown> };

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
  const channel = channelAdapter("email");
  const files = content.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: Buffer.from(a.contentBase64, "base64"), disposition: a.disposition }));
  let written = 0;
  for (const m of reach) {
    if (!sending) break;
    const address = m.key;
    const approved: AttachedSend = {
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
    const stored = await storeSendInTx(tx, await signSend(tx, approved), { idempotencyKey: keyOf(address), lease: false, broadcastId: b.id });
    if (stored) written++;
  }
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
      .where(and(eq(audienceMembers.audienceId, b.audienceId), after === null ? undefined : gt(audienceMembers.email, after)))
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
});
