import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { agents } from "./agents";
import { inboxes } from "./messaging";
import { organizations } from "./organizations";

export const PHONE_NUMBER_TYPES = ["local", "toll_free", "national", "mobile"] as const;
export const PHONE_NUMBER_STATUSES = ["pending", "active", "releasing", "released", "failed"] as const;

/**
 * A phone number an organization provisioned from its telephony provider (lib/phone). Bound to an
 * inbox, it is that inbox's `sms` connection (`inbox_connections`); released numbers stay as
 * history (`released`), and only one live row may hold a number.
 */
export const phoneNumbers = pgTable(
  "phone_numbers",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    /** E.164. */
    phoneNumber: text().notNull(),
    countryCode: text().notNull(),
    numberType: text({ enum: PHONE_NUMBER_TYPES }).notNull(),
    status: text({ enum: PHONE_NUMBER_STATUSES }).notNull(),
    capabilities: text().array().notNull().default(sql`'{}'::text[]`),
    inboxId: uuid().references(() => inboxes.id, { onDelete: "set null" }),
    agentId: uuid().references(() => agents.id, { onDelete: "set null" }),
    monthlyCostCents: integer().notNull().default(0),
    setupCostCents: integer().notNull().default(0),
    requirements: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    metadata: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    inboundInstructions: text(),
    inboundGreeting: text(),
    inboundVoice: text(),
    inboundLanguage: text(),
    /** The provider that holds the number (`simulated`, `twilio`) and its id there (Twilio's `PN…`). */
    provider: text().notNull(),
    providerId: text(),
    purchasedAt: tstz(),
    releasedAt: tstz(),
    /**
     * Months paid (lib/phone/billing.ts): the provisioning hold paid the first; the billing sweep
     * charges the next one once `coalesce(purchased_at, created_at) + paid_months months` passed.
     */
    paidMonths: integer().notNull().default(1),
    /** When the budget refused the month's charge: not tried again before this (a day later). */
    billingRetryAt: tstz(),
    /** Why the number was released when the service released it (`unpaid`: past the grace); null otherwise. */
    releaseReason: text(),
    createdAt: createdAt(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    index("phone_numbers_org_idx").on(t.orgId, t.createdAt, t.id),
    uniqueIndex("phone_numbers_live_key")
      .on(t.phoneNumber)
      .where(sql`${t.status} in ('pending', 'active', 'releasing')`),
  ],
);

export const PHONE_CALL_STATUSES = [
  "queued",
  "ringing",
  "in_progress",
  "completed",
  "failed",
  "no_answer",
  "busy",
] as const;
export type PhoneCallStatus = (typeof PHONE_CALL_STATUSES)[number];

/** One entry of a call's status timeline. */
export interface CallTimelineEntry {
  status: PhoneCallStatus;
  at: string;
  reason: string | null;
}

/**
 * An AI phone call (lib/phone/calls): placed from one of the organization's numbers, moved through
 * its states by the provider's status callbacks (`provider_call_id` is Twilio's `CallSid`), ended by
 * the sweeper as `failed` once past `deadline_at` when the provider never reported. Transcript,
 * summary and the recording's storage key are written with the final state.
 */
export const phoneCalls = pgTable(
  "phone_calls",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    numberId: uuid()
      .notNull()
      .references(() => phoneNumbers.id, { onDelete: "cascade" }),
    direction: text({ enum: ["outbound", "inbound"] }).notNull(),
    fromNumber: text().notNull(),
    toNumber: text().notNull(),
    status: text({ enum: PHONE_CALL_STATUSES }).notNull(),
    instructions: text().notNull(),
    greeting: text(),
    voice: text().notNull(),
    language: text().notNull(),
    maxDurationSeconds: integer().notNull(),
    metadata: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    timeline: jsonb().$type<CallTimelineEntry[]>().notNull().default([]),
    transcript: jsonb().$type<Record<string, unknown>>(),
    summary: jsonb().$type<Record<string, unknown>>(),
    recordingKey: text(),
    recording: jsonb().$type<Record<string, unknown>>(),
    failureReason: text(),
    provider: text().notNull(),
    providerCallId: text(),
    deadlineAt: tstz().notNull(),
    answeredAt: tstz(),
    endedAt: tstz(),
    createdAt: createdAt(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    index("phone_calls_org_idx").on(t.orgId, t.createdAt, t.id),
    uniqueIndex("phone_calls_provider_call_key").on(t.providerCallId),
    index("phone_calls_open_idx").on(t.deadlineAt).where(sql`${t.status} in ('queued', 'ringing', 'in_progress')`),
  ],
);

/**
 * The simulated carrier's clock (lib/providers/telephony/simulated.ts): each callback it will post
 * to the service (Twilio's format, signed at post time), due at `due_at`. Kept in the database so a
 * call in progress still reaches its final state after a restart: the carrier's drainer resumes at
 * start and on the per-minute call sweep. A row is deleted once posted; `lease_until` keeps two
 * processes from posting one row at once.
 */
export const simulatedCarrierCallbacks = pgTable(
  "simulated_carrier_callbacks",
  {
    id: id(),
    url: text().notNull(),
    params: jsonb().$type<Record<string, string>>().notNull(),
    dueAt: tstz().notNull(),
    leaseUntil: tstz(),
    attempts: integer().notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index("simulated_carrier_callbacks_due_idx").on(t.dueAt)],
);
