import { and, eq, inArray } from "drizzle-orm";
import { refuseForeignOptions } from "@/lib/channels";
import type { Db, DbOrTx } from "@/db";
import { suppressions } from "@/db/schema";
import { mayUseInbox, type Principal } from "@/lib/auth/principal";
import { invalidRequest, notPermitted } from "@/lib/core/errors";
import { refuseByReputation } from "@/lib/agents/reputation";
import { agentOfSend, agentPublicId, findAgentById } from "@/lib/agents/agent";
import { type BudgetSubject, checkSendBudgets } from "@/lib/budgets/enforce";
import type { ApprovedSend, RenderedSend, SendWarning } from "./draft";
import { coveredRows, type SendReads } from "./read";

async function complaintWarnings(
  db: DbOrTx,
  orgId: string,
  recipients: string[],
  reads?: SendReads,
): Promise<SendWarning[]> {
  if (recipients.length === 0) return [];
  const rows =
    coveredRows(reads, (r) => r.suppressions, recipients) ??
    (await db
      .select()
      .from(suppressions)
      .where(and(eq(suppressions.orgId, orgId), inArray(suppressions.address, recipients))));
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
  if (r.inbox.status !== "active")
    throw notPermitted(`The inbox is ${r.inbox.status}; it neither sends nor receives.`, "inboxId");
}

/**
 * The agent the send is made as: the one its key or inbox is bound to (a scheduled send keeps the
 * one it was accepted as, `agentId`). A suspended or revoked agent's send is refused: it would
 * otherwise leave unsigned.
 */
export async function sendingAgent(
  db: DbOrTx,
  r: Pick<RenderedSend, "principal" | "inbox" | "reads">,
  agentId: string | null | undefined,
) {
  const agent =
    agentId !== undefined
      ? agentId
        ? await findAgentById(db, agentId)
        : null
      : await agentOfSend(db, r.principal.orgId, r.principal.apiKeyId, r.inbox.id, r.reads?.bindings);
  if (agent && agent.status !== "active") {
    throw notPermitted(
      `This send is made as the agent ${agentPublicId(agent.id)}, which is ${agent.status}; bind the key or inbox elsewhere or unbind it.`,
      "inboxId",
    );
  }
  return agent;
}

/**
 * Whom a send counts against: the organization, the key, and the agent the send is made as; agent
 * budgets also match the sending key itself (the spec's "api key id for key/agent").
 */
export function budgetSubjectOf(principal: Principal, agent: { id: string } | null): BudgetSubject {
  return { orgId: principal.orgId, apiKeyId: principal.apiKeyId, agentIds: agent ? [agentPublicId(agent.id)] : [] };
}

/**
 * How the policy stage treats budgets: `accept` a send now or scheduled (over a budget: 429 and
 * `budget.tripped`), `dry` a preview (429 without the event), `fire` a scheduled send going out
 * (reserved when it was accepted: only `hardStopOnComplaint` is checked again).
 */
export type BudgetMode = "accept" | "dry" | "fire";

/**
 * Stage 4: whether this send may go — the inbox and the key, the agent it is made as, the
 * channel's own rules, recipients who complained (refused unless `ignoreComplaints`; warned about
 * otherwise), and the budgets the send falls under (`lib/budgets/enforce.ts`: checked here,
 * reserved exactly in the store stage's transaction), and the agent's reputation (lib/agents/reputation.ts).
 * `opts.agentId`: the agent a scheduled send was accepted as (its row's), instead of the bindings'
 * answer now.
 */
export async function applyPolicy(
  db: Db,
  r: RenderedSend,
  mode: BudgetMode = "accept",
  opts: { agentId?: string | null } = {},
): Promise<ApprovedSend> {
  refuseInbox(r);
  const agent = await sendingAgent(db, r, opts.agentId);
  // The agent's reputation: quarantined → 403, throttled → sends per hour capped (429).
  if (agent) await refuseByReputation(db, agent);
  refuseForeignOptions(r.channel, r.input);
  r.channel.validate({ recipients: r.recipients, internal: r.internal, scheduled: Boolean(r.input.sendAt) });
  const warnings = await complaintWarnings(db, r.principal.orgId, r.recipients, r.reads);
  if (warnings.length > 0 && !r.input.ignoreComplaints) {
    const recipients = warnings.map((w) => w.recipient);
    throw invalidRequest(
      `Recipients who complained: ${recipients.join(", ")}. Send with ignoreComplaints to override.`,
      "to",
    ).withOverride({ field: "ignoreComplaints", recipients });
  }
  const subject = budgetSubjectOf(r.principal, agent);
  const budget = await checkSendBudgets(db, subject, r.recipients.length, r.inbox.id, {
    mode: mode === "fire" ? "fire" : "accept",
    record: mode !== "dry",
    budgeted: r.reads?.budgeted,
  });
  return { ...r, warnings, budget, agent };
}
