import { and, eq } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { phoneNumbers } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { refuseOnTrip } from "@/lib/budgets/enforce";
import { holdSpendInTx, settleSpend } from "@/lib/budgets/spend";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { ApiError, invalidRequest, notFound, uniqueViolation } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { addConnection } from "@/lib/inboxes/connections";
import { findInbox } from "@/lib/inboxes/service";
import { log } from "@/lib/log";
import { type InventoryNumber, type NumberType, telephony } from "@/lib/providers/telephony";
import type { PhoneNumber } from "./contracts";
import {
  findAgentOf,
  findNumber,
  liveNumbers,
  newestFirst,
  type PhoneNumberRow,
  SMS_CHANNEL,
  toPhoneNumber,
  unbindSms,
} from "./number";

/** A provider failure as 502 `provider_unavailable`; a refusal the provider explained (an `ApiError`, e.g. Twilio's 4xx) as it is. */
const providerUnavailable = (what: string, err: unknown) => {
  if (err instanceof ApiError) return err;
  log.warn("telephony provider call failed", { what, err: err instanceof Error ? err.message : String(err) });
  return new ApiError("provider_unavailable", `The telephony provider did not ${what}; try again later.`);
};

/** Masks the last four digits of a number that cannot be bought yet (the account is not verified). */
const masked = (n: string) => `${n.slice(0, -4)}XXXX`;

export async function searchAvailable(
  db: DbOrTx,
  q: { country: string; type?: NumberType; contains?: string; limit: number },
) {
  const provider = telephony();
  let inventory: InventoryNumber[];
  let verified: boolean;
  try {
    [inventory, verified] = await Promise.all([provider.search(q), provider.verified()]);
  } catch (err) {
    throw providerUnavailable("answer the search", err);
  }
  const taken = await liveNumbers(
    db,
    inventory.map((n) => n.phoneNumber),
  );
  const data = inventory
    .filter((n) => !taken.has(n.phoneNumber))
    .slice(0, q.limit)
    .map((n) => ({
      object: "phone_number.available" as const,
      phoneNumber: verified ? n.phoneNumber : masked(n.phoneNumber),
      countryCode: n.countryCode,
      numberType: n.numberType,
      purchasable: verified,
      locality: n.locality,
      region: n.region,
      capabilities: n.capabilities,
      monthlyCostUsd: n.monthlyCostCents / 100,
      setupCostUsd: n.setupCostCents / 100,
    }));
  return { object: "list" as const, data };
}

/** Binds the number to `inboxId` (the organization's inbox) as its SMS connection, replacing any earlier binding. */
async function bindInbox(tx: DbOrTx, principal: Principal, phoneNumber: string, inboxId: string) {
  const inbox = await findInbox(tx, principal, inboxId);
  if (inbox.status === "deleted") throw notFound("inbox", "inboxId");
  await unbindSms(tx, phoneNumber);
  await addConnection(tx, inbox, SMS_CHANNEL, phoneNumber);
}

/**
 * Provisions a number in three steps, so nothing is bought without a record: one transaction holds
 * its cost under the account budget (429 `spend_cap_reached`) and records it (`pending`, the
 * number reserved by the live-number unique index: 409 when taken), binds it and writes the audit
 * row; then the provider buys it; then it becomes `active` (or stays `pending` with the country's
 * outstanding `requirements`) and the hold is captured. A provider failure marks it `failed` and
 * gives the hold back (502).
 */
export async function provisionNumber(
  db: Db,
  principal: Principal,
  body: { phoneNumber: string; inboxId?: string; agentId?: string; metadata?: Record<string, unknown> },
): Promise<PhoneNumber> {
  const provider = telephony();
  let offer: InventoryNumber | null;
  let verified: boolean;
  try {
    [offer, verified] = await Promise.all([provider.lookup(body.phoneNumber), provider.verified()]);
  } catch (err) {
    throw providerUnavailable("look the number up", err);
  }
  if (!offer) throw invalidRequest(`${body.phoneNumber} is not in the provider's inventory.`, "phoneNumber");
  if (!verified)
    throw invalidRequest("The provider account has not completed identity verification yet.", "phoneNumber");
  const n = offer;
  const { row, holdId } = await refuseOnTrip(db, () =>
    db.transaction(async (tx) => {
      if (body.agentId) await findAgentOf(tx, principal, body.agentId);
      let inserted: PhoneNumberRow | undefined;
      try {
        [inserted] = await tx
          .insert(phoneNumbers)
          .values({
            orgId: principal.orgId,
            phoneNumber: n.phoneNumber,
            countryCode: n.countryCode,
            numberType: n.numberType,
            status: "pending",
            capabilities: n.capabilities,
            inboxId: body.inboxId ?? null,
            agentId: body.agentId ?? null,
            monthlyCostCents: n.monthlyCostCents,
            setupCostCents: n.setupCostCents,
            metadata: body.metadata ?? {},
            provider: provider.name,
          })
          .returning();
      } catch (err) {
        if (uniqueViolation(err) !== null)
          throw new ApiError("conflict", `${n.phoneNumber} is already provisioned.`, "phoneNumber");
        throw err;
      }
      if (!inserted) throw new Error("phone number insert returned nothing");
      if (body.inboxId) await bindInbox(tx, principal, n.phoneNumber, body.inboxId);
      const hold = await holdSpendInTx(
        tx,
        principal.orgId,
        n.setupCostCents + n.monthlyCostCents,
        `phone_number:${inserted.id}`,
      );
      await recordAudit(tx, principal, {
        orgId: principal.orgId,
        action: "phone_number.provisioned",
        resourceType: "phone_number",
        resourceId: inserted.id,
        metadata: { phoneNumber: n.phoneNumber, inboxId: body.inboxId ?? null, provider: provider.name },
      });
      return { row: inserted, holdId: hold.id };
    }),
  );
  let bought: Awaited<ReturnType<typeof provider.provision>>;
  try {
    bought = await provider.provision(n);
  } catch (err) {
    await db.transaction(async (tx) => {
      await tx.update(phoneNumbers).set({ status: "failed", updatedAt: new Date() }).where(eq(phoneNumbers.id, row.id));
      await unbindSms(tx, n.phoneNumber);
      await settleSpend(tx, holdId, "released");
    });
    throw providerUnavailable("provision the number", err);
  }
  const now = new Date();
  const [done] = await db.transaction(async (tx) => {
    await settleSpend(tx, holdId, "captured");
    return tx
      .update(phoneNumbers)
      .set({
        status: bought.status,
        providerId: bought.providerId,
        requirements: bought.requirements,
        purchasedAt: now,
        updatedAt: now,
      })
      .where(eq(phoneNumbers.id, row.id))
      .returning();
  });
  if (!done) throw new Error("phone number vanished while provisioning");
  return toPhoneNumber(done);
}

export async function listNumbers(db: DbOrTx, principal: Principal, q: { limit: number; cursor?: string }) {
  const after = decodeCursor(q.cursor);
  const rows = await db
    .select()
    .from(phoneNumbers)
    .where(and(eq(phoneNumbers.orgId, principal.orgId), keysetBefore(phoneNumbers.createdAt, phoneNumbers.id, after)))
    .orderBy(...newestFirst)
    .limit(q.limit + 1);
  const { items, pagination } = toPage(rows, q.limit);
  return { object: "list" as const, data: items.map(toPhoneNumber), pagination };
}

export async function getNumber(db: DbOrTx, principal: Principal, id: string): Promise<PhoneNumber> {
  return toPhoneNumber(await findNumber(db, principal, id));
}

export interface NumberUpdate {
  inboxId?: string | null;
  agentId?: string | null;
  inboundInstructions?: string | null;
  inboundGreeting?: string | null;
  inboundVoice?: string | null;
  inboundLanguage?: string | null;
  metadata?: Record<string, unknown>;
}

/**
 * PhoneNumberUpdateRequest: only the properties given change; an explicit null unbinds `inboxId`
 * (and its SMS connection) or `agentId`, or resets an `inbound*` field to the default assistant's.
 * A released (or failed) number takes no changes (409).
 */
export async function updateNumber(db: Db, principal: Principal, id: string, body: NumberUpdate): Promise<PhoneNumber> {
  return db.transaction(async (tx) => {
    const row = await findNumber(tx, principal, id, { lock: true });
    if (row.status === "released" || row.status === "failed" || row.status === "releasing")
      throw new ApiError("conflict", `The number is ${row.status}; it takes no changes.`, "numberId");
    if (body.inboxId === null) await unbindSms(tx, row.phoneNumber);
    else if (body.inboxId !== undefined) await bindInbox(tx, principal, row.phoneNumber, body.inboxId);
    if (body.agentId) await findAgentOf(tx, principal, body.agentId);
    const [updated] = await tx
      .update(phoneNumbers)
      .set({ ...body, updatedAt: new Date() })
      .where(eq(phoneNumbers.id, row.id))
      .returning();
    if (!updated) throw new Error("phone number update returned nothing");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "phone_number.updated",
      resourceType: "phone_number",
      resourceId: row.id,
      metadata: { fields: Object.keys(body), inboxId: updated.inboxId, agentId: updated.agentId },
    });
    return toPhoneNumber(updated);
  });
}

/**
 * Releases a number: `releasing` with its inbox binding dropped and the audit row (one
 * transaction), then the provider's release, then `released`. Released already: answered as it is.
 */
export async function releaseNumber(db: Db, principal: Principal, id: string): Promise<PhoneNumber> {
  const row = await db.transaction(async (tx) => {
    const current = await findNumber(tx, principal, id, { lock: true });
    if (current.status === "released") {
      noAuditNeeded("the number was released already");
      return current;
    }
    await unbindSms(tx, current.phoneNumber);
    const [releasing] = await tx
      .update(phoneNumbers)
      .set({ status: "releasing", inboxId: null, updatedAt: new Date() })
      .where(eq(phoneNumbers.id, current.id))
      .returning();
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "phone_number.released",
      resourceType: "phone_number",
      resourceId: current.id,
      metadata: { phoneNumber: current.phoneNumber },
    });
    return releasing ?? current;
  });
  if (row.status === "released") return toPhoneNumber(row);
  if (row.providerId) {
    try {
      await telephony().release(row.providerId);
    } catch (err) {
      throw providerUnavailable("release the number", err);
    }
  }
  const now = new Date();
  const [released] = await db
    .update(phoneNumbers)
    .set({ status: "released", releasedAt: now, updatedAt: now })
    .where(and(eq(phoneNumbers.id, row.id), eq(phoneNumbers.status, "releasing")))
    .returning();
  return toPhoneNumber(released ?? (await findNumber(db, principal, id)));
}
