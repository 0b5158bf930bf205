import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { suppressions } from "@/db/schema";
import { mayUseInbox } from "@/lib/auth/principal";
import { invalidRequest, notPermitted } from "@/lib/core/errors";
import type { ApprovedSend, RenderedSend, SendWarning } from "./draft";

async function complaintWarnings(db: DbOrTx, orgId: string, recipients: string[]): Promise<SendWarning[]> {
  if (recipients.length === 0) return [];
  const rows = await db
    .select()
    .from(suppressions)
    .where(and(eq(suppressions.orgId, orgId), inArray(suppressions.address, recipients)));
  return rows.map((r) => ({
    recipient: r.address,
    reason: "complaint" as const,
    message: `${r.address} complained about earlier mail from this organization.`,
    sourceMessageId: r.sourceMessageId,
    providerMessageId: r.providerMessageId,
    complaintFeedbackType: r.feedbackType,
    complaintUserAgent: r.userAgent,
    lastEventAt: r.lastEventAt.toISOString(),
  }));
}

/** The key's inbox restriction and the inbox's status: may this inbox send at all? */
export function refuseInbox(r: Pick<RenderedSend, "principal" | "inbox">): void {
  if (!mayUseInbox(r.principal, r.inbox.id)) throw notPermitted("This API key may not send as this inbox.", "inboxId");
  if (r.inbox.status !== "active") throw notPermitted(`The inbox is ${r.inbox.status}; it neither sends nor receives.`, "inboxId");
}

/**
 * Stage 4: whether this send may go — the inbox and the key, the channel's own rules, and
 * recipients who complained (refused unless `ignoreComplaints`; warned about otherwise). Budgets
 * and reputation will plug in here.
 */
export async function applyPolicy(db: DbOrTx, r: RenderedSend): Promise<ApprovedSend> {
  refuseInbox(r);
  r.channel.validate(r);
  const warnings = await complaintWarnings(db, r.principal.orgId, r.recipients);
  if (warnings.length > 0 && !r.input.ignoreComplaints) {
    throw invalidRequest(`Recipients who complained: ${warnings.map((w) => w.recipient).join(", ")}. Send with ignoreComplaints to override.`, "to");
  }
  return { ...r, warnings };
}
