import { z } from "zod";
import type { DbOrTx } from "@/db";
import type { Role } from "@/db/schema";
import { ApiError, type ErrorBody } from "@/lib/api/errors";
import type { Principal } from "@/lib/auth/principal";
import { EVENT_TYPES, type EventType } from "@/lib/events/ledger";
import { readEvents } from "@/lib/events/stream";
import { errorFields, log } from "@/lib/log";
import { listOrganizationsForUser, roleOf } from "@/lib/organizations/service";
import { can, consolePrincipal } from "./roles";
import { ORG_COOKIE, readCookie, sessionUserFromCookies } from "./session-token";

/** The console's live tail of the event stream: the page's first render and the long-poll reads. */

/** How long one tail request waits for an append before answering with an empty page. */
export const TAIL_WAIT_SECONDS = 20;
/** Events per page, on the page and per long-poll answer. */
export const TAIL_PAGE_SIZE = 50;

export type StreamEntry = Awaited<ReturnType<typeof readEvents>>["data"][number];

/** What the tail endpoint answers: events after the cursor, oldest first, and the cursor to go on from. */
export interface TailPage {
  data: StreamEntry[];
  /** Where the next read starts (unchanged when nothing arrived). */
  cursor: string | null;
  hasMore: boolean;
}

export const tailQuery = z.strictObject({
  cursor: z.string().min(1).max(200).optional(),
  type: z.enum(EVENT_TYPES).optional(),
  /** The organization the page shows; defaults to the console's current one (the cookie). */
  org: z.uuid().optional(),
  wait: z.coerce.number().int().min(0).max(25).default(TAIL_WAIT_SECONDS),
});

/**
 * The organization a tail request reads and the user's role in it: an explicit `org` must be one of
 * theirs; otherwise the cookie's organization when it is theirs, else their first (as `getConsole`).
 */
async function membership(db: DbOrTx, userId: string, explicit: string | null, cookie: string | null): Promise<{ orgId: string; role: Role } | null> {
  if (explicit) {
    const role = await roleOf(db, explicit, userId);
    return role ? { orgId: explicit, role } : null;
  }
  const organizations = await listOrganizationsForUser(db, userId);
  const org = organizations.find((o) => o.id === cookie) ?? organizations[0];
  return org ? { orgId: org.id, role: org.role } : null;
}

/**
 * The newest events of the organization (newest first) for the page's server render, and the head
 * cursor the live tail continues from. The head is read first: an event appended in between shows
 * up in both, and the client drops the repeat by `eventId`.
 */
export async function latestEvents(db: DbOrTx, principal: Principal, input: { type?: EventType; before?: string; limit?: number }) {
  const limit = input.limit ?? TAIL_PAGE_SIZE;
  const head = await readEvents(db, principal, { limit: 1, type: input.type, order: "oldest", wait: 0, tail: true });
  const page = await readEvents(db, principal, { limit, type: input.type, cursor: input.before, order: "newest", wait: 0, tail: false });
  return { events: page.data, headCursor: head.pagination.nextCursor, olderCursor: page.pagination.hasMore ? page.pagination.nextCursor : null };
}

/**
 * `GET /console/api/events`: the session cookie names the user; the organization is `org` or the
 * `svc_org` cookie (else the user's first, as the console does); membership and `events:read` are
 * checked; then one long-poll read after `cursor`. Returns the HTTP status and JSON body.
 */
export async function tailEvents(db: DbOrTx, cookieHeader: string | null, query: URLSearchParams): Promise<{ status: number; body: TailPage | ErrorBody }> {
  try {
    const parsed = tailQuery.safeParse(Object.fromEntries(query));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ApiError("invalid_request", issue?.message ?? "Invalid query.", issue ? issue.path.map(String).join(".") : null);
    }
    const input = parsed.data;
    const user = await sessionUserFromCookies(db, cookieHeader);
    if (!user) throw new ApiError("session_required", "Sign in to the console to read events.");
    const member = await membership(db, user.userId, input.org ?? null, readCookie(cookieHeader ?? "", ORG_COOKIE));
    if (!member) throw new ApiError("not_permitted", "You are not a member of this organization.");
    if (!can(member.role, "events:read")) throw new ApiError("not_permitted", `Your role (${member.role}) cannot read events.`);
    const principal = consolePrincipal({ orgId: member.orgId, userId: user.userId, role: member.role });
    const page = await readEvents(db, principal, { limit: TAIL_PAGE_SIZE, cursor: input.cursor, type: input.type, order: "oldest", wait: input.wait, tail: false });
    return { status: 200, body: { data: page.data, cursor: page.pagination.nextCursor ?? input.cursor ?? null, hasMore: page.pagination.hasMore } };
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, body: err.toBody() };
    log.error("console event tail failed", errorFields(err));
    return { status: 500, body: new ApiError("internal_error", "Reading events failed.").toBody() };
  }
}
