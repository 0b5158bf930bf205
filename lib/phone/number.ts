import { and, desc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, inboxConnections, phoneNumbers } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { smsDefinition } from "@/lib/channels/sms/definition";
import { notFound } from "@/lib/core/errors";
import type { PhoneNumber } from "./contracts";

/** Rows, the public form and lookups of phone numbers (the verbs are in `numbers.ts`). */
export type PhoneNumberRow = typeof phoneNumbers.$inferSelect;

export const SMS_CHANNEL = smsDefinition.id;
export const LIVE_STATUSES = ["pending", "active", "releasing"] as const;

const usd = (cents: number) => cents / 100;

export function toPhoneNumber(r: PhoneNumberRow): PhoneNumber {
  return {
    object: "phone_number",
    id: r.id,
    phoneNumber: r.phoneNumber,
    countryCode: r.countryCode,
    numberType: r.numberType,
    status: r.status,
    capabilities: r.capabilities,
    inboxId: r.inboxId,
    agentId: r.agentId,
    monthlyCostUsd: usd(r.monthlyCostCents),
    setupCostUsd: usd(r.setupCostCents),
    requirements: r.requirements,
    metadata: r.metadata,
    inboundInstructions: r.inboundInstructions,
    inboundGreeting: r.inboundGreeting,
    inboundVoice: r.inboundVoice as PhoneNumber["inboundVoice"],
    inboundLanguage: r.inboundLanguage,
    createdAt: r.createdAt.toISOString(),
    purchasedAt: r.purchasedAt?.toISOString() ?? null,
    releasedAt: r.releasedAt?.toISOString() ?? null,
  };
}

/** The organization's number (404 naming `param` otherwise); `lock` takes its row lock. */
export async function findNumber(
  db: DbOrTx,
  principal: Principal,
  id: string,
  opts: { lock?: boolean; param?: string } = {},
): Promise<PhoneNumberRow> {
  const q = db
    .select()
    .from(phoneNumbers)
    .where(and(eq(phoneNumbers.orgId, principal.orgId), eq(phoneNumbers.id, id)));
  const [row] = opts.lock ? await q.for("update") : await q;
  if (!row) throw notFound("phone number", opts.param ?? "numberId");
  return row;
}

/** The live numbers among `candidates` (provisioned on this deployment by any organization). */
export async function liveNumbers(db: DbOrTx, candidates: string[]): Promise<Set<string>> {
  if (candidates.length === 0) return new Set();
  const rows = await db
    .select({ n: phoneNumbers.phoneNumber })
    .from(phoneNumbers)
    .where(and(inArray(phoneNumbers.phoneNumber, candidates), inArray(phoneNumbers.status, [...LIVE_STATUSES])));
  return new Set(rows.map((r) => r.n));
}

/** The organization's agent by its uuid (404 naming `agentId` otherwise). */
export async function findAgentOf(db: DbOrTx, principal: Principal, agentId: string): Promise<void> {
  const [row] = await db
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.orgId, principal.orgId), eq(agents.id, agentId)));
  if (!row) throw notFound("agent", "agentId");
}

/** Drops the number's SMS connection (it neither sends nor receives for any inbox after). */
export async function unbindSms(tx: DbOrTx, phoneNumber: string): Promise<void> {
  await tx
    .delete(inboxConnections)
    .where(and(eq(inboxConnections.channel, SMS_CHANNEL), eq(inboxConnections.address, phoneNumber)));
}

/** The number an inbox sends SMS from: its oldest live SMS connection's number row, or null. */
export async function numberOfInbox(db: DbOrTx, inboxId: string): Promise<PhoneNumberRow | null> {
  const [row] = await db
    .select({ number: phoneNumbers })
    .from(inboxConnections)
    .innerJoin(
      phoneNumbers,
      and(eq(phoneNumbers.phoneNumber, inboxConnections.address), inArray(phoneNumbers.status, [...LIVE_STATUSES])),
    )
    .where(
      and(
        eq(inboxConnections.inboxId, inboxId),
        eq(inboxConnections.channel, SMS_CHANNEL),
        eq(inboxConnections.status, "active"),
      ),
    )
    .orderBy(inboxConnections.createdAt)
    .limit(1);
  return row?.number ?? null;
}

export const newestFirst = [desc(phoneNumbers.createdAt), desc(phoneNumbers.id)];
