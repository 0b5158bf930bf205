import { requestCountsByKey as countsByKey } from "@/lib/request-logs/service";
import { broadcastContent as contentOf, listBroadcasts as broadcastsOf } from "@/lib/audiences/broadcast";
import type { DeliveryStatus } from "@/lib/messages/delivery-status";
import { and, eq } from "drizzle-orm";
import { getDb } from "@/db";
import { messages } from "@/db/schema";
import { hasPassword as userHasPassword } from "@/lib/account/users";
import { listAuditActions } from "@/lib/audit/service";
import { auditNames as namesOf } from "@/lib/audit/names";
import type { Permission } from "@/lib/auth/roles";
import { listJobs } from "@/lib/compliance/jobs";
import { ApiError } from "@/lib/core/errors";
import { type ThreadSummary, threadSummaries as summariesOf } from "@/lib/messages/threads";
import { describeInvitation as describe } from "@/lib/organizations/invitations";
import { listWorkflowRuns, type ListRunsInput } from "@/lib/workflows/runs";
import type { ConsoleContext, SignedInUser } from "./context";
import { deliveryVolume as volumeOf, overview as overviewOf, type VolumeRange } from "./overview";

/**
 * Console reads that are not operations of the API (page aggregates and helpers): the services
 * called with the console actor's principal, so pages never hold a database handle.
 */

function need(ctx: ConsoleContext, permission: Permission): void {
  if (!ctx.can(permission)) throw new ApiError("not_permitted", `Your role (${ctx.role}) cannot read this.`);
}

/** The Overview page's counts and traffic (counts the role cannot read come back null). */
export async function overview(ctx: ConsoleContext) {
  need(ctx, "messages:read");
  return overviewOf(await getDb(), ctx.principal);
}

/** Outbound messages per hour or day by delivery status (the Overview's volume chart). */
export async function deliveryVolume(ctx: ConsoleContext, range: VolumeRange) {
  need(ctx, "messages:read");
  return volumeOf(await getDb(), ctx.principal, range);
}

/** The audit actions recorded in the organization (the filter's suggestions). */
export async function auditActions(ctx: ConsoleContext): Promise<string[]> {
  need(ctx, "account:read");
  return listAuditActions(await getDb(), ctx.principal);
}

/**
 * Names for an audit page's actors and resources (`kind:id` → the key's name, the member's email,
 * the inbox's address, …); API keys are named only for roles that may read them.
 */
export async function auditNames(
  ctx: ConsoleContext,
  entries: readonly { actor: string | null; resourceType: string | null; resourceId: string | null }[],
): Promise<Map<string, string>> {
  need(ctx, "account:read");
  const refs: { kind: string; id: string }[] = [];
  for (const e of entries) {
    const [kind, ...rest] = (e.actor ?? "").split(":");
    if (kind && rest.length > 0) refs.push({ kind, id: rest.join(":") });
    if (e.resourceType && e.resourceId) refs.push({ kind: e.resourceType, id: e.resourceId });
  }
  return namesOf(await getDb(), ctx.principal.orgId, refs, { withKeys: ctx.can("keys:read") });
}

/** Each API key's requests in the last 24 hours (the API keys page); empty for roles that cannot read the log. */
export async function requestCountsByKey(ctx: ConsoleContext): Promise<Map<string, number>> {
  if (!ctx.can("account:read")) return new Map();
  return countsByKey(await getDb(), ctx.principal.orgId);
}

/** The organization's newest broadcasts with their progress, subject, audience and inbox (the Broadcasts page). */
export async function broadcasts(ctx: ConsoleContext) {
  need(ctx, "audiences:read");
  return broadcastsOf(await getDb(), ctx.principal);
}

/** What a broadcast says and its members' messages (the broadcast page; 404 for another organization's). */
export async function broadcastContent(ctx: ConsoleContext, broadcastId: string, deliveryStatus?: DeliveryStatus) {
  need(ctx, "audiences:read");
  const content = await contentOf(await getDb(), ctx.principal, broadcastId, { deliveryStatus });
  // The members' messages only for a role that may read messages.
  return { ...content, messages: ctx.can("messages:read") ? content.messages : null };
}

/** The parties of each thread and its latest message (for the threads list). */
export async function threadSummaries(ctx: ConsoleContext, threadIds: string[]): Promise<Map<string, ThreadSummary>> {
  need(ctx, "messages:read");
  return summariesOf(await getDb(), ctx.principal, threadIds);
}

/** Workflow runs that belong to the organization. */
export async function workflowRuns(ctx: ConsoleContext, input: Omit<ListRunsInput, "orgId">) {
  need(ctx, "events:read");
  return listWorkflowRuns(await getDb(), { ...input, orgId: ctx.org.id });
}

/** How many erasure and purge jobs the compliance page lists (newest first). */
export const COMPLIANCE_JOBS_SHOWN = 50;

/** The organization's erasure and purge jobs, newest first, with their certificates once completed. */
export async function complianceJobs(ctx: ConsoleContext, limit = COMPLIANCE_JOBS_SHOWN) {
  need(ctx, "compliance:read");
  return listJobs(await getDb(), ctx.principal, limit);
}

/** Whether the signed-in user can sign in with a password (settings offers to set one if not). */
export async function hasPassword(ctx: SignedInUser | ConsoleContext): Promise<boolean> {
  return userHasPassword(await getDb(), ctx.user.id);
}

/** What an invitation link is for (the accept page, shown before signing in). */
export async function describeInvitation(token: string) {
  return describe(await getDb(), token);
}

/**
 * What the message's "Headers" view adds to its public fields: its Reply-To and an outbound send's
 * custom headers (null for another organization's message; the page has read it already).
 */
export async function messageStoredHeaders(
  ctx: ConsoleContext,
  messageId: string,
): Promise<{ replyTo: string | null; headers: Record<string, string> | null } | null> {
  need(ctx, "messages:read");
  const db = await getDb();
  const [row] = await db
    .select({ replyTo: messages.replyTo, headers: messages.headers })
    .from(messages)
    .where(and(eq(messages.orgId, ctx.principal.orgId), eq(messages.id, messageId)));
  return row ?? null;
}
