import { createHash } from "node:crypto";
import { and, count, desc, eq, lte, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { audienceMembers, audiences, broadcasts, fanouts, inboxes, messages } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { checkSendBudgets } from "@/lib/budgets/enforce";
import { refuseByReputation } from "@/lib/agents/reputation";
import { recordAudit } from "@/lib/core/audit";
import { invalidRequest, notFound } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { findInbox } from "@/lib/inboxes/service";
import type { SendMessageInput } from "@/lib/messages/contracts";
import type { DeliveryStatus } from "@/lib/messages/delivery-status";
import { toMessage } from "@/lib/messages/read";
import { attachFiles } from "@/lib/messages/stages/attach";
import { budgetSubjectOf, refuseInbox, sendingAgent } from "@/lib/messages/stages/policy";
import { renderBody } from "@/lib/messages/stages/render";
import { customHeaders, decodeAttachments, refuseConflictingBody } from "@/lib/messages/stages/validate";
import { startFanout } from "@/lib/workflows/fanout";
import type { z } from "zod";
import { type broadcastBody, PER_RECIPIENT_FIELDS } from "./contracts";
import { findAudience } from "./service";
import { BROADCAST_KIND, type BroadcastContent } from "./broadcast-fanout";

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

type BroadcastRow = typeof broadcasts.$inferSelect;

type BroadcastBody = z.infer<typeof broadcastBody>;

const PUBLIC_PREFIX = "bcast_";

export const publicBroadcastId = (id: string) => `${PUBLIC_PREFIX}${id.replace(/-/g, "")}`;

/** `bcast_<32 hex>` or the uuid itself → the uuid; null when it is neither. */
export function broadcastUuid(value: string): string | null {
  const hex = value.startsWith(PUBLIC_PREFIX) ? value.slice(PUBLIC_PREFIX.length) : value.replace(/-/g, "");
  if (!/^[0-9a-f]{32}$/i.test(hex)) return null;
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export async function queueBroadcast(
  db: Db,
  principal: Principal,
  audienceId: string,
  body: BroadcastBody,
  idempotencyKey: string | null,
) {
  for (const field of PER_RECIPIENT_FIELDS) {
    if (body[field] !== undefined)
      throw invalidRequest(`\`${field}\` is per recipient: a broadcast goes to each member of the audience.`, field);
  }
  const {
    to: _to,
    cc: _cc,
    bcc: _bcc,
    contactId: _contactId,
    channel: _channel,
    sendAt: _sendAt,
    inReplyTo: _inReplyTo,
    references: _references,
    replyToMessageId: _replyToMessageId,
    dryRun: _dryRun,
    buttons: _buttons,
    ...fields
  } = body;
  const input: SendMessageInput = { ...fields, to: [] };
  refuseConflictingBody(input);
  const headers = customHeaders(input);
  const requested = decodeAttachments(input);
  const audience = await findAudience(db, principal.orgId, audienceId);
  const inbox = await findInbox(db, principal, input.inboxId);
  refuseInbox({ principal, inbox });
  const rendered = await renderBody(db, principal.orgId, input);
  // Stored files are fetched (and checked: owned, clean) once, now; every member's message carries the same files.
  const { files, linked } = await attachFiles(db, {
    principal,
    attachments: requested,
    text: rendered.text,
    html: rendered.html,
  });
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
    attachments: files.map((f) => ({
      filename: f.filename ?? null,
      contentType: f.contentType,
      contentBase64: f.content.toString("base64"),
      disposition: f.disposition ?? "attachment",
    })),
    linked,
  };
  const base =
    idempotencyKey ??
    `bcast:${createHash("sha256")
      .update(
        JSON.stringify([
          principal.orgId,
          audience.id,
          inbox.id,
          content.subject,
          content.text,
          content.html,
          content.attachments.map((a) => a.contentBase64),
        ]),
      )
      .digest("base64url")
      .slice(0, 32)}`;
  const { row, afterCommit } = await db.transaction(async (tx) => {
    await findAudience(tx, principal.orgId, audience.id, { lock: true });
    const snapshotAt = new Date();
    const [n] = await tx
      .select({ n: count() })
      .from(audienceMembers)
      .where(
        and(
          eq(audienceMembers.audienceId, audience.id),
          eq(audienceMembers.status, "active"),
          lte(audienceMembers.createdAt, snapshotAt),
        ),
      );
    const [stored] = await tx
      .insert(broadcasts)
      .values({
        orgId: principal.orgId,
        audienceId: audience.id,
        inboxId: inbox.id,
        content: { ...content },
        idempotencyBase: base,
        total: Number(n?.n ?? 0),
        createdAt: snapshotAt,
      })
      .returning();
    if (!stored) throw new Error("broadcast insert returned nothing");
    const fanout = await startFanout(tx, {
      kind: BROADCAST_KIND,
      params: { broadcastId: stored.id },
      chunkSize: env.BROADCAST_CHUNK_SIZE,
    });
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
  return {
    object: "broadcast" as const,
    id: publicBroadcastId(row.id),
    audienceId: row.audienceId,
    status: "queued" as const,
  };
}

export async function getBroadcast(db: DbOrTx, principal: Principal, broadcastId: string) {
  const id = broadcastUuid(broadcastId);
  const [row] = id
    ? await db
        .select({
          b: broadcasts,
          fanoutStatus: fanouts.status,
          chunksDone: fanouts.chunksDone,
          fanoutCompletedAt: fanouts.completedAt,
        })
        .from(broadcasts)
        .leftJoin(fanouts, eq(fanouts.id, broadcasts.fanoutId))
        .where(and(eq(broadcasts.orgId, principal.orgId), eq(broadcasts.id, id)))
    : [];
  if (!row) throw notFound("broadcast", "broadcastId");
  return {
    broadcast: await toBroadcast(db, row.b, {
      status: row.fanoutStatus,
      chunksDone: row.chunksDone ?? 0,
      completedAt: row.fanoutCompletedAt,
    }),
  };
}

async function toBroadcast(
  db: DbOrTx,
  b: BroadcastRow,
  fanout: { status: string | null; chunksDone: number; completedAt: Date | null },
) {
  // `final`: when the group's last message became final (handed to its transport or failed: the handoff
  // stamps sentAt on both; a message refused at store has only its creation time).
  const byStatus = await db
    .select({
      status: messages.status,
      n: count(),
      final: sql<Date | null>`max(coalesce(${messages.sentAt}, ${messages.createdAt}))`.mapWith(messages.sentAt),
    })
    .from(messages)
    .where(eq(messages.broadcastId, b.id))
    .groupBy(messages.status);
  const n = (s: string) => Number(byStatus.find((r) => r.status === s)?.n ?? 0);
  const made = byStatus.reduce((sum, r) => sum + Number(r.n), 0);
  const sent = n("sent");
  const failed = n("failed") + n("canceled");
  const planned = fanout.status === "completed";
  const pending = planned ? made - sent - failed : Math.max(0, b.total - sent - failed - b.suppressed);
  const status: "queued" | "sending" | "completed" =
    planned && made - sent - failed === 0 ? "completed" : fanout.chunksDone === 0 && made === 0 ? "queued" : "sending";
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
    completedAt: status === "completed" ? completedAt(fanout.completedAt, byStatus) : null,
  };
}

/**
 * A completed broadcast's completedAt: when its last member's message became final, or when its members were
 * all planned if that was later (every member suppressed, say) — never the planning time alone, which comes
 * before the transport has been handed the messages.
 */
function completedAt(planned: Date | null, groups: { final: Date | null }[]): string | null {
  const times = [planned, ...groups.map((g) => g.final)].filter((t) => t !== null).map((t) => t.getTime());
  return times.length ? new Date(Math.max(...times)).toISOString() : null;
}

/** How many broadcasts the console's Broadcasts page lists (newest first). */
export const BROADCASTS_LISTED = 50;

/**
 * The organization's newest broadcasts with their progress (as `getBroadcast`), subject, audience
 * name and inbox address: the console's Broadcasts page (a console read, not an API operation).
 */
export async function listBroadcasts(db: DbOrTx, principal: Principal, limit = BROADCASTS_LISTED) {
  const rows = await db
    .select({
      b: broadcasts,
      fanoutStatus: fanouts.status,
      chunksDone: fanouts.chunksDone,
      fanoutCompletedAt: fanouts.completedAt,
      audienceName: audiences.name,
      inboxAddress: inboxes.address,
    })
    .from(broadcasts)
    .leftJoin(fanouts, eq(fanouts.id, broadcasts.fanoutId))
    .leftJoin(audiences, eq(audiences.id, broadcasts.audienceId))
    .leftJoin(inboxes, eq(inboxes.id, broadcasts.inboxId))
    .where(eq(broadcasts.orgId, principal.orgId))
    .orderBy(desc(broadcasts.createdAt), desc(broadcasts.id))
    .limit(limit);
  return Promise.all(
    rows.map(async (r) => ({
      ...(await toBroadcast(db, r.b, {
        status: r.fanoutStatus,
        chunksDone: r.chunksDone ?? 0,
        completedAt: r.fanoutCompletedAt,
      })),
      subject: (r.b.content as unknown as BroadcastContent).subject,
      audienceName: r.audienceName,
      inboxAddress: r.inboxAddress,
    })),
  );
}

/** How many of a broadcast's member messages its console page lists. */
export const BROADCAST_MESSAGES_LISTED = 100;

/**
 * What a broadcast says (subject, text, html: the preview of what members receive) and its members'
 * messages, newest first, optionally of one delivery status: the console's broadcast page.
 */
export async function broadcastContent(
  db: DbOrTx,
  principal: Principal,
  broadcastId: string,
  filter: { deliveryStatus?: DeliveryStatus } = {},
) {
  const id = broadcastUuid(broadcastId);
  const [row] = id
    ? await db
        .select({ b: broadcasts, audienceName: audiences.name, inboxAddress: inboxes.address })
        .from(broadcasts)
        .leftJoin(audiences, eq(audiences.id, broadcasts.audienceId))
        .leftJoin(inboxes, eq(inboxes.id, broadcasts.inboxId))
        .where(and(eq(broadcasts.orgId, principal.orgId), eq(broadcasts.id, id)))
    : [];
  if (!row) throw notFound("broadcast", "broadcastId");
  const content = row.b.content as unknown as BroadcastContent;
  const members = await db
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.orgId, principal.orgId),
        eq(messages.broadcastId, row.b.id),
        filter.deliveryStatus ? eq(messages.deliveryStatus, filter.deliveryStatus) : undefined,
      ),
    )
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(BROADCAST_MESSAGES_LISTED);
  return {
    inboxId: row.b.inboxId,
    subject: content.subject,
    text: content.text ?? null,
    html: content.html ?? null,
    audienceName: row.audienceName,
    inboxAddress: row.inboxAddress,
    messages: members.map((m) => toMessage(m, null, false)),
  };
}
