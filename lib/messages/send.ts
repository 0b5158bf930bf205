import { and, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { messages } from "@/db/schema";
import { ApiError, notFound } from "@/lib/core/errors";
import { recordAudit } from "@/lib/core/audit";
import type { Principal } from "@/lib/auth/principal";
import { publishWorkflowEvents } from "@/lib/workflows/publish";
import type { SendMessageInput } from "./contracts";
import { senderOf } from "@/lib/channels";
import { deliverSend } from "./stages/deliver";
import { attachFiles } from "./stages/attach";
import type { AttachedSend } from "./stages/draft";
import { applyPolicy, type BudgetMode } from "./stages/policy";
import { refuseOnTrip, releaseSend, reserveSend } from "@/lib/budgets/enforce";
import { renderSend } from "./stages/render";
import { readAhead } from "./stages/read";
import { resolveSend } from "./stages/resolve";
import { earlierSend, type SendResponse, sendResponseOf, toPreview } from "./stages/respond";
import { signSend } from "./stages/sign";
import { outboundRow, storeSend } from "./stages/store";
import { validateRequest } from "./stages/validate";
import { type MessageRow, storeMessage } from "./store";
import { messageCanceled, messageScheduled } from "./workflow-events";

export type { SendResponse } from "./stages/respond";
export type { SendWarning } from "./stages/draft";

/**
 * The send pipeline (docs/ARCHITECTURE.md, "Send"): each stage is a file in `./stages/` and a plain
 * function over the draft; this file only runs them in order for a send now, a scheduled send, a
 * scheduled send firing, and a dry run.
 */

/** validate → resolve → render → policy → attach: a send ready to preview, schedule or sign. */
async function approve(
  db: Db,
  principal: Principal,
  input: SendMessageInput,
  now: Date,
  mode: BudgetMode,
  policy: { agentId?: string | null } = {},
): Promise<AttachedSend> {
  const validated = validateRequest(input, now);
  const resolved = await resolveSend(db, principal, validated, undefined, await readAhead(db, principal, validated));
  return attachFiles(db, await applyPolicy(db, await renderSend(db, resolved), mode, policy));
}

/**
 * The request a scheduled send re-runs when it fires, with what was resolved when it was accepted:
 * the recipients (contact references as the addresses they named then) and the template version.
 */
function pinnedRequest(a: AttachedSend): SendMessageInput {
  const { contactId: _contactId, ...input } = a.input;
  return {
    ...input,
    to: a.to,
    cc: a.cc.length > 0 ? a.cc : undefined,
    bcc: a.bcc.length > 0 ? a.bcc : undefined,
    template: a.template && input.template ? { ...input.template, version: a.template.version } : input.template,
    sendAt: null,
  };
}

/**
 * `sendAt`: stored `scheduled` (no thread yet) with `svc/message.scheduled` and the budgets'
 * reservation in one transaction (a scheduled send counts when it is accepted; canceling gives it back).
 */
async function schedule(
  db: Db,
  a: AttachedSend,
  sendAt: Date,
  idempotencyKey: string | null,
  now: Date,
): Promise<SendResponse> {
  const { row, afterCommit } = await refuseOnTrip(db, () =>
    db.transaction(async (tx) => {
      const messageIdHeader = a.channel.messageKey(senderOf(a.inbox));
      const stored = await storeMessage(
        tx,
        {
          ...outboundRow(a, messageIdHeader, idempotencyKey),
          status: "scheduled",
          scheduledAt: sendAt,
          request: pinnedRequest(a),
          receivedAt: now,
        },
        a.files,
        {
          thread: false,
        },
      );
      const after = await publishWorkflowEvents(tx, [
        messageScheduled.create({ messageId: stored.id, orgId: a.principal.orgId, sendAt: sendAt.toISOString() }),
      ]);
      await reserveSend(tx, a.budget, stored.id, now);
      return { row: stored, afterCommit: after };
    }),
  );
  await afterCommit();
  return sendResponseOf(row, a.warnings);
}

/** `POST /v1/messages`: validate → resolve → render → policy, then preview, schedule, or sign → store → deliver → respond. */
export async function sendMessage(
  db: Db,
  principal: Principal,
  input: SendMessageInput,
  now: Date = new Date(),
  idempotencyKey: string | null = input.idempotencyKey ?? null,
): Promise<SendResponse | ReturnType<typeof toPreview>> {
  if (idempotencyKey && !input.dryRun) {
    const earlier = await earlierSend(db, principal.orgId, idempotencyKey);
    if (earlier) return earlier;
  }
  const approved = await approve(db, principal, input, now, input.dryRun ? "dry" : "accept");
  if (input.dryRun) return toPreview(approved);
  if (approved.sendAt) return schedule(db, approved, approved.sendAt, idempotencyKey, now);
  const stored = await storeSend(db, await signSend(db, approved), { idempotencyKey });
  if (!stored) throw new Error("a new message was not stored");
  return sendResponseOf(await deliverSend(db, stored), approved.warnings);
}

/** A system principal acting in an organization (workflows re-running a validated request). */
export function systemPrincipal(orgId: string, userId: string): Principal {
  return {
    orgId,
    userId,
    apiKeyId: null,
    scopes: new Set(),
    inboxIds: null,
    actor: "system:scheduler",
    ip: null,
    requestId: null,
  };
}

/**
 * Fires a scheduled message (the send-scheduled-message workflow calls this when `sendAt` comes):
 * the same stages re-run on the stored request — the inbox must still send, complaints still
 * count — then it goes out under its own Message-ID, or is marked `failed` with the reason.
 * Harmless to call twice: only a message still `scheduled` is sent (checked in the store stage's
 * transaction).
 */
export async function sendScheduledMessage(
  db: Db,
  messageId: string,
): Promise<{ status: string; error: string | null }> {
  const [row] = await db.select().from(messages).where(eq(messages.id, messageId));
  if (!row || row.status !== "scheduled" || !row.request) return { status: row?.status ?? "missing", error: null };
  const principal = systemPrincipal(row.orgId, "00000000-0000-0000-0000-000000000000");
  let approved: AttachedSend;
  try {
    approved = await approve(
      db,
      principal,
      { ...(row.request as SendMessageInput), sendAt: null, dryRun: false },
      new Date(),
      "fire",
      { agentId: row.agentId },
    );
  } catch (err) {
    const reason = err instanceof ApiError ? err.message : "revalidation_failed";
    await db
      .update(messages)
      .set({ status: "failed", error: reason })
      .where(and(eq(messages.id, row.id), eq(messages.status, "scheduled")));
    return { status: "failed", error: reason };
  }
  const stored = await storeSend(
    db,
    await signSend(db, approved, { id: row.id, messageIdHeader: row.messageIdHeader }),
    { idempotencyKey: row.idempotencyKey, existing: row },
  );
  if (!stored) return { status: "canceled", error: null };
  const final = await deliverSend(db, stored);
  return { status: final.status, error: final.error };
}

/** `scheduled` → `canceled` before it fires (audited); the workflow waiting for it is cancelled too. */
export async function cancelScheduledMessage(db: Db, principal: Principal, messageId: string) {
  const { row, afterCommit } = await db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(messages)
      .where(and(eq(messages.orgId, principal.orgId), eq(messages.id, messageId), eq(messages.direction, "outbound")))
      .for("update");
    if (!current) throw notFound("outbound email", "emailId");
    if (current.status !== "scheduled")
      throw new ApiError(
        "conflict",
        `The email is ${current.status}; only a scheduled email can be canceled.`,
        "emailId",
      );
    const [updated] = await tx
      .update(messages)
      .set({ status: "canceled" })
      .where(eq(messages.id, current.id))
      .returning();
    if (!updated) throw notFound("outbound email", "emailId");
    await releaseSend(tx, principal.orgId, current.id);
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "message.scheduled_canceled",
      resourceType: "message",
      resourceId: current.id,
    });
    const after = await publishWorkflowEvents(tx, [messageCanceled.create({ messageId: current.id })]);
    return { row: updated, afterCommit: after };
  });
  await afterCommit();
  return { message: toOutboundMessage(row) };
}

export function toOutboundMessage(row: MessageRow) {
  return {
    id: row.id,
    from: row.fromAddress,
    to: row.to,
    subject: row.subject,
    status: row.status,
    sentAt: row.sentAt?.toISOString() ?? null,
    scheduledAt: row.scheduledAt?.toISOString() ?? null,
    error: row.error,
  };
}
