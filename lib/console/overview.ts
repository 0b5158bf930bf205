import { reputationThresholds } from "@/lib/agents/reputation";
import { and, eq, gte, ne, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { apiKeys, domains, inboxes, messages, webhooks } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import type { Scope } from "@/lib/auth/scopes";
import { OUTBOUND_DELIVERY_STATUSES } from "@/lib/messages/delivery-status";

/** The window of the message totals. */
export const WINDOW_DAYS = 30;

/** What became of outbound messages: the derived delivery status (lib/messages/delivery-status.ts). */
export const OUTCOMES = OUTBOUND_DELIVERY_STATUSES;
export type Outcome = (typeof OUTCOMES)[number];

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
}

const DAY_MS = 24 * 3600 * 1000;

const isOutcome = (v: string): v is Outcome => (OUTCOMES as readonly string[]).includes(v);

/** A count when the principal holds `scope`, else null (the page shows no number it may not read). */
async function countIf(principal: Principal, scope: Scope, run: () => Promise<number>): Promise<number | null> {
  return principal.scopes.has(scope) ? run() : null;
}

/**
 * The console's Overview: resource counts and the organization's message traffic. One aggregate
 * query (GROUP BY direction) over the window reads the organization's messages through
 * `messages_org_created_idx` (org_id, created_at), so it stays cheap at any table size.
 */
export async function overview(db: DbOrTx, principal: Principal, now: Date = new Date()): Promise<Overview> {
  const org = principal.orgId;
  const since = new Date(now.getTime() - WINDOW_DAYS * DAY_MS);
  const rows = await db
    .select({ direction: messages.direction, count: sql<number>`count(*)`.mapWith(Number) })
    .from(messages)
    .where(and(eq(messages.orgId, org), gte(messages.createdAt, since)))
    .groupBy(messages.direction);

  const inboxCount = await countIf(principal, "inboxes:read", () =>
    db.$count(inboxes, and(eq(inboxes.orgId, org), ne(inboxes.status, "deleted"))),
  );
  const customDomains = await countIf(principal, "domains:read", () =>
    db.$count(domains, and(eq(domains.orgId, org), eq(domains.isShared, false))),
  );
  const verifiedDomains = await countIf(principal, "domains:read", () =>
    db.$count(domains, and(eq(domains.orgId, org), eq(domains.isShared, false), eq(domains.status, "verified"))),
  );
  const activeKeys = await countIf(principal, "keys:read", () =>
    db.$count(apiKeys, and(eq(apiKeys.orgId, org), eq(apiKeys.status, "active"))),
  );
  const allWebhooks = await countIf(principal, "webhooks:read", () => db.$count(webhooks, eq(webhooks.orgId, org)));
  const activeWebhooks = await countIf(principal, "webhooks:read", () =>
    db.$count(webhooks, and(eq(webhooks.orgId, org), eq(webhooks.status, "active"))),
  );

  const totals = { inbound: 0, outbound: 0 };
  for (const r of rows) totals[r.direction] += r.count;

  return {
    counts: {
      inboxes: inboxCount,
      domains:
        customDomains === null || verifiedDomains === null
          ? null
          : { custom: customDomains, verified: verifiedDomains },
      activeApiKeys: activeKeys,
      webhooks: allWebhooks === null || activeWebhooks === null ? null : { total: allWebhooks, active: activeWebhooks },
    },
    messages: totals,
  };
}

/** The ranges of the delivery volume chart: the last 24 hours by hour, the last 7 or 30 days by day (UTC). */
export const VOLUME_RANGES = {
  "24h": { label: "24 hours", bucket: "hour", buckets: 24 },
  "7d": { label: "7 days", bucket: "day", buckets: 7 },
  "30d": { label: "30 days", bucket: "day", buckets: 30 },
} as const;
export type VolumeRange = keyof typeof VOLUME_RANGES;

export const isVolumeRange = (v: unknown): v is VolumeRange => typeof v === "string" && Object.hasOwn(VOLUME_RANGES, v);

export interface VolumeBucket {
  /** Start of the bucket, ISO 8601 in UTC (`2026-11-23T14:00:00Z`). */
  start: string;
  /** Outbound messages created in the bucket, by their delivery status. */
  counts: Record<Outcome, number>;
}

export interface DeliveryVolume {
  range: VolumeRange;
  bucket: "hour" | "day";
  /** Oldest first, every bucket of the range present (zeros included); the last one holds `now`. */
  buckets: VolumeBucket[];
  /** Per outcome over the whole range. */
  totals: Record<Outcome, number>;
}

const HOUR_MS = 3600 * 1000;
const zeros = (): Record<Outcome, number> => Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;

/**
 * Outbound messages of the organization per hour (24 h) or per UTC day (7 or 30 d), by delivery
 * status: one aggregate query (GROUP BY bucket, delivery_status) over `messages_org_created_idx`;
 * no message row is loaded. Buckets with no messages are filled in with zeros.
 */
export async function deliveryVolume(
  db: DbOrTx,
  principal: Principal,
  range: VolumeRange,
  now: Date = new Date(),
): Promise<DeliveryVolume> {
  const { bucket, buckets: n } = VOLUME_RANGES[range];
  const step = bucket === "hour" ? HOUR_MS : DAY_MS;
  const current =
    bucket === "hour"
      ? Math.floor(now.getTime() / HOUR_MS) * HOUR_MS
      : Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const first = current - (n - 1) * step;
  const unit = bucket === "hour" ? sql.raw("'hour'") : sql.raw("'day'");
  const start = sql<string>`to_char(date_trunc(${unit}, ${messages.createdAt} at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:00:00"Z"')`;
  const rows = await db
    .select({ start, outcome: messages.deliveryStatus, count: sql<number>`count(*)`.mapWith(Number) })
    .from(messages)
    .where(
      and(
        eq(messages.orgId, principal.orgId),
        eq(messages.direction, "outbound"),
        gte(messages.createdAt, new Date(first)),
      ),
    )
    .groupBy(start, messages.deliveryStatus);

  const buckets: VolumeBucket[] = Array.from({ length: n }, (_, i) => ({
    start: new Date(first + i * step).toISOString().replace(".000Z", "Z"),
    counts: zeros(),
  }));
  const byStart = new Map(buckets.map((b) => [b.start, b]));
  const totals = zeros();
  for (const r of rows) {
    const b = byStart.get(r.start);
    if (!b || !isOutcome(r.outcome)) continue;
    b.counts[r.outcome] += r.count;
    totals[r.outcome] += r.count;
  }
  return { range, bucket, buckets, totals };
}

/** A rate (0..1) beside the reputation thresholds at which an agent is throttled and quarantined. */
export interface RateView {
  rate: number | null;
  count: number;
  throttleAt: number;
  quarantineAt: number;
}

/**
 * The bounce and complaint rates of a volume's totals: bounced (complained) messages of those that
 * reached a provider (sent, delivered, delayed, bounced, complained); null when none did. Beside the
 * reputation thresholds (lib/agents/reputation.ts), which apply per agent over 24 hours.
 */
export function deliveryRates(
  totals: Record<Outcome, number>,
  thresholds: Pick<
    ReturnType<typeof reputationThresholds>,
    "throttleBounceRate" | "quarantineBounceRate" | "throttleComplaintRate" | "quarantineComplaintRate"
  > = reputationThresholds(),
): { reached: number; bounce: RateView; complaint: RateView } {
  const reached = totals.sent + totals.delivered + totals.delayed + totals.bounced + totals.complained;
  const rate = (n: number) => (reached === 0 ? null : n / reached);
  return {
    reached,
    bounce: {
      rate: rate(totals.bounced),
      count: totals.bounced,
      throttleAt: thresholds.throttleBounceRate,
      quarantineAt: thresholds.quarantineBounceRate,
    },
    complaint: {
      rate: rate(totals.complained),
      count: totals.complained,
      throttleAt: thresholds.throttleComplaintRate,
      quarantineAt: thresholds.quarantineComplaintRate,
    },
  };
}
