import { getDb } from "@/db";
import { hasPassword as userHasPassword } from "@/lib/account/users";
import { listAuditActions } from "@/lib/audit/service";
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
