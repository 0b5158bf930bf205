import { and, eq, gte, ne, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { apiKeys, domains, inboxes, messages, webhooks } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import type { Scope } from "@/lib/auth/scopes";
import { OUTBOUND_DELIVERY_STATUSES } from "@/lib/messages/delivery-status";

/** Days of the messages-per-day chart (today in UTC and the 13 before it). */
export const CHART_DAYS = 14;
/** The window of the message totals and delivery outcomes. */
export const WINDOW_DAYS = 30;

/** What became of outbound messages: the derived delivery status (lib/messages/delivery-status.ts). */
export const OUTCOMES = OUTBOUND_DELIVERY_STATUSES;
export type Outcome = (typeof OUTCOMES)[number];

export interface DayCount {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  inbound: number;
  outbound: number;
}

export interface Overview {
  /** Counts the principal may read; null where its role lacks the read scope. */
  counts: {
    inboxes: number | null;
    domains: { custom: number; verified: number } | null;
    activeApiKeys: number | null;
    webhooks: { total: number; active: number } | null;
  };
  /** Messages created in the last `WINDOW_DAYS` days. */
  messages: { inbound: number; outbound: number };
  /** Oldest first, one entry per day (zeros included). */
  perDay: DayCount[];
  /** Outbound messages of the window by outcome, every outcome present (zeros included). */
  outcomes: { outcome: Outcome; count: number }[];
}

const DAY_MS = 24 * 3600 * 1000;

const isOutcome = (v: string): v is Outcome => (OUTCOMES as readonly string[]).includes(v);

/** `YYYY-MM-DD` of a date in UTC. */
const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/** A count when the principal holds `scope`, else null (the page shows no number it may not read). */
async function countIf(principal: Principal, scope: Scope, run: () => Promise<number>): Promise<number | null> {
  return principal.scopes.has(scope) ? run() : null;
}

/**
 * The console's Overview: resource counts and the organization's message traffic. One aggregate
 * query (GROUP BY day, direction, outcome) over the window reads the organization's messages
 * through `messages_org_created_idx` (org_id, created_at), so it stays cheap at any table size.
 */
export async function overview(db: DbOrTx, principal: Principal, now: Date = new Date()): Promise<Overview> {
  const org = principal.orgId;
  const since = new Date(now.getTime() - WINDOW_DAYS * DAY_MS);
  const day = sql<string>`to_char(${messages.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows = await db
    .select({ day, direction: messages.direction, outcome: messages.deliveryStatus, count: sql<number>`count(*)`.mapWith(Number) })
    .from(messages)
    .where(and(eq(messages.orgId, org), gte(messages.createdAt, since)))
    .groupBy(day, messages.direction, messages.deliveryStatus);

  const inboxCount = await countIf(principal, "inboxes:read", () => db.$count(inboxes, and(eq(inboxes.orgId, org), ne(inboxes.status, "deleted"))));
  const customDomains = await countIf(principal, "domains:read", () => db.$count(domains, and(eq(domains.orgId, org), eq(domains.isShared, false))));
  const verifiedDomains = await countIf(principal, "domains:read", () =>
    db.$count(domains, and(eq(domains.orgId, org), eq(domains.isShared, false), eq(domains.status, "verified"))),
  );
  const activeKeys = await countIf(principal, "keys:read", () => db.$count(apiKeys, and(eq(apiKeys.orgId, org), eq(apiKeys.status, "active"))));
  const allWebhooks = await countIf(principal, "webhooks:read", () => db.$count(webhooks, eq(webhooks.orgId, org)));
  const activeWebhooks = await countIf(principal, "webhooks:read", () => db.$count(webhooks, and(eq(webhooks.orgId, org), eq(webhooks.status, "active"))));

  const firstChartDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (CHART_DAYS - 1) * DAY_MS);
  const perDay: DayCount[] = Array.from({ length: CHART_DAYS }, (_, i) => ({ day: utcDay(new Date(firstChartDay.getTime() + i * DAY_MS)), inbound: 0, outbound: 0 }));
  const byDay = new Map(perDay.map((d) => [d.day, d]));
  const totals = { inbound: 0, outbound: 0 };
  const outcomes = new Map<Outcome, number>(OUTCOMES.map((o) => [o, 0]));
  for (const r of rows) {
    totals[r.direction] += r.count;
    const entry = byDay.get(r.day);
    if (entry) entry[r.direction] += r.count;
    if (r.direction === "outbound" && isOutcome(r.outcome)) outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + r.count);
  }

  return {
    counts: {
      inboxes: inboxCount,
      domains: customDomains === null || verifiedDomains === null ? null : { custom: customDomains, verified: verifiedDomains },
      activeApiKeys: activeKeys,
      webhooks: allWebhooks === null || activeWebhooks === null ? null : { total: allWebhooks, active: activeWebhooks },
    },
    messages: totals,
    perDay,
    outcomes: OUTCOMES.map((outcome) => ({ outcome, count: outcomes.get(outcome) ?? 0 })),
  };
}
