import { and, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { messages } from "@/db/schema";
import { type ChannelId, channelDefinition, publicChannelMetadata } from "@/lib/channels/definitions";
import type { MessageRow } from "../store";
import { settledMessage } from "./deliver";
import type { AttachedSend, SendWarning } from "./draft";

export interface SendResponse {
  id: string;
  status: "sent" | "scheduled" | "failed" | "queued";
  warnings: SendWarning[];
  providerMessageId: string | null;
  error: string | null;
  channel: ChannelId;
  channelMetadata: Record<string, unknown> | null;
  scheduledAt: string | null;
}

const RESPONSE_STATUS: Record<string, SendResponse["status"]> = {
  sent: "sent",
  failed: "failed",
  scheduled: "scheduled",
  canceled: "failed",
};

/** Stage 9: the answer to a send, from its stored message (its channel's public metadata, for channels that show it there). */
export function sendResponseOf(row: MessageRow, warnings: SendWarning[]): SendResponse {
  return {
    id: row.id,
    status: RESPONSE_STATUS[row.status] ?? "queued",
    warnings,
    providerMessageId: row.providerMessageId,
    error: row.error ?? (row.status === "canceled" ? "canceled" : null),
    channel: row.channel,
    channelMetadata: channelDefinition(row.channel).inSendResponse
      ? publicChannelMetadata(row.channel, row.channelMetadata)
      : null,
    scheduledAt: row.status === "scheduled" ? (row.scheduledAt?.toISOString() ?? null) : null,
  };
}

const preview = (text: string | null, html: string | null) =>
  (text ?? html?.replace(/<[^>]+>/g, " ") ?? "").replace(/\s+/g, " ").trim().slice(0, 200);

/** The dry run's answer: the send as it would go, nothing created. */
export function toPreview(p: AttachedSend) {
  return {
    object: "message_preview" as const,
    status: "preview" as const,
    channel: p.channel.id,
    inboxId: p.inbox.id,
    from: { address: p.inbox.address, name: p.inbox.displayName },
    to: p.to,
    cc: p.cc,
    bcc: p.bcc,
    subject: p.subject,
    textPreview: preview(p.text, p.html),
    hasHtml: p.html !== null,
    inReplyTo: p.inReplyTo,
    references: p.references,
    linked: p.linked,
    attachments: p.files.map((f) => ({
      filename: f.filename ?? "",
      contentType: f.contentType,
      sizeBytes: f.content.length,
    })),
    sizeBytes:
      Buffer.byteLength(p.text ?? "") +
      Buffer.byteLength(p.html ?? "") +
      p.files.reduce((n, f) => n + f.content.length, 0),
    scheduledAt: p.sendAt?.toISOString() ?? null,
    warnings: p.warnings,
    template: p.template,
  };
}

/**
 * A send already stored under this Idempotency-Key (its first request's record was lost with its
 * process): its final answer, never a second send.
 */
export async function earlierSend(db: Db, orgId: string, idempotencyKey: string): Promise<SendResponse | null> {
  const [row] = await db
    .select()
    .from(messages)
    .where(
      and(eq(messages.orgId, orgId), eq(messages.idempotencyKey, idempotencyKey), eq(messages.direction, "outbound")),
    )
    .limit(1);
  if (!row) return null;
  return sendResponseOf(row.status === "queued" ? await settledMessage(db, row.id) : row, []);
}
