import { z } from "zod";
import { getDb } from "@/db";
import type { DbOrTx } from "@/db";
import type { Role } from "@/db/schema";
import { consolePrincipal } from "@/lib/auth/roles";
import { ApiError, type ErrorBody } from "@/lib/core/errors";
import { invoke } from "@/lib/core/invoke";
import { issueToError } from "@/lib/core/issues";
import type { OperationOutput } from "@/lib/core/operation";
import type { EventType } from "@/lib/events/contracts";
import { listEvents } from "@/lib/events/operations";
import { errorFields, log } from "@/lib/log";
import { listOrganizationsForUser, roleOf } from "@/lib/organizations/service";
import type { ConsoleContext, UserActor } from "./context";
import { ORG_COOKIE, readCookie, sessionUserFromCookies } from "./session-token";

/**
 * The console's live tail of the event stream: the `listEvents` operation invoked with the
 * signed-in user (their role's `events:read`), for the page's first render and the long-poll reads.
 */

/** How long one tail request waits for an append before answering with an empty page (listEvents' longest wait). */
export const TAIL_WAIT_SECONDS = 12;
/** Events per page, on the page and per long-poll answer. */
export const TAIL_PAGE_SIZE = 50;

export type StreamEntry = OperationOutput<typeof listEvents>["data"][number];

/** What the tail endpoint answers: events after the cursor, oldest first, and the cursor to go on from. */
export interface TailPage {
  data: StreamEntry[];
  /** Where the next read starts (unchanged when nothing arrived). */
  cursor: string | null;
  hasMore: boolean;
}

/**
 * The newest events of the organization (newest first) for the page's server render, and the head
 * cursor the live tail continues from. The head is read first: an event appended in between shows
 * up in both, and the client drops the repeat by `eventId`.
 */
export async function latestEvents(ctx: ConsoleContext, input: { type?: EventType; before?: string; limit?: number }) {
  const limit = input.limit ?? TAIL_PAGE_SIZE;
  const head = await ctx.invoke(listEvents, { query: { limit: 1, type: input.type, tail: "true" } });
  const page = await ctx.invoke(listEvents, {
    query: { limit, type: input.type, cursor: input.before, order: "newest" },
  });
  return {
    events: page.data,
    headCursor: head.pagination.nextCursor,
    olderCursor: page.pagination.hasMore ? page.pagination.nextCursor : null,
  };
}

/**
 * The organization a tail request reads and the user's role in it: an explicit `org` must be one of
 * theirs; otherwise the cookie's organization when it is theirs, else their first (as `getConsole`).
 */
async function membership(
  db: DbOrTx,
  userId: string,
  explicit: string | null,
  cookie: string | null,
): Promise<{ orgId: string; role: Role } | null> {
  if (explicit) {
    const role = await roleOf(db, explicit, userId);
    return role ? { orgId: explicit, role } : null;
  }
  const organizations = await listOrganizationsForUser(db, userId);
  const org = organizations.find((o) => o.id === cookie) ?? organizations[0];
  return org ? { orgId: org.id, role: org.role } : null;
}

const orgParam = z.uuid().optional();

/**
 * `GET /console/api/events`: the session cookie names the user; the organization is `org` or the
 * `svc_org` cookie (else the user's first, as the console does); then one long-poll `listEvents`
 * read after `cursor` (the other query parameters are the operation's own, checked by it).
 */
export async function tailEvents(
  cookieHeader: string | null,
  query: URLSearchParams,
  ip: string | null = null,
): Promise<{ status: number; body: TailPage | ErrorBody }> {
  try {
    const { org, ...rest } = Object.fromEntries(query);
    const orgId = orgParam.safeParse(org);
    if (!orgId.success) throw issueToError(orgId.error.issues[0], "org");
    const db = await getDb();
    const user = await sessionUserFromCookies(db, cookieHeader);
    if (!user) throw new ApiError("session_required", "Sign in to the console to read events.");
    const member = await membership(db, user.userId, orgId.data ?? null, readCookie(cookieHeader ?? "", ORG_COOKIE));
    if (!member) throw new ApiError("not_permitted", "You are not a member of this organization.");
    const principal = consolePrincipal({ orgId: member.orgId, userId: user.userId, role: member.role, ip });
    const actor: UserActor = {
      type: "user",
      userId: user.userId,
      email: user.email,
      org: { id: member.orgId, role: member.role },
      principal,
      ip,
    };
    const { data: page } = await invoke(listEvents, actor, {
      query: { wait: String(TAIL_WAIT_SECONDS), ...rest, limit: String(TAIL_PAGE_SIZE), order: "oldest" },
    });
    return {
      status: 200,
      body: {
        data: page.data,
        cursor: page.pagination.nextCursor ?? rest.cursor ?? null,
        hasMore: page.pagination.hasMore,
      },
    };
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, body: err.toBody() };
    log.error("console event tail failed", errorFields(err));
    return { status: 500, body: new ApiError("internal_error", "Reading events failed.").toBody() };
  }
}
