import { and, asc, eq, inArray, ne } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { domains, inboxes } from "@/db/schema";
import { ApiError, invalidRequest, notFound } from "@/lib/core/errors";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import type { Principal } from "@/lib/auth/principal";
import { INBOX_ADDRESS_CHANNEL } from "@/lib/channels/definitions";
import { addConnection } from "./connections";

export type InboxRow = typeof inboxes.$inferSelect;
export type InboxMode = InboxRow["mode"];

export interface Inbox {
  object: "inbox";
  id: string;
  address: string;
  domainId: string;
  displayName: string | null;
  mode: InboxMode;
  agent: string | null;
  status: InboxRow["status"];
  channel: typeof INBOX_ADDRESS_CHANNEL;
  createdAt: string;
  updatedAt: string;
}

export function toInbox(row: InboxRow): Inbox {
  return {
    object: "inbox",
    id: row.id,
    address: row.address,
    domainId: row.domainId,
    displayName: row.displayName,
    mode: row.mode,
    agent: row.agent,
    status: row.status,
    channel: INBOX_ADDRESS_CHANNEL,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const LOCAL_PART = /^[a-z0-9](?:[a-z0-9._+-]{0,62}[a-z0-9])?$/;

export async function findInbox(
  db: DbOrTx,
  principal: Principal,
  inboxId: string,
  param = "inboxId",
): Promise<InboxRow> {
  const [row] = await db
    .select()
    .from(inboxes)
    .where(and(eq(inboxes.orgId, principal.orgId), eq(inboxes.id, inboxId)));
  return foundInbox(row, param);
}

/** `findInbox`'s answer for a row already read (404 when there is none). */
export function foundInbox(row: InboxRow | null | undefined, param = "inboxId"): InboxRow {
  if (!row) throw notFound("inbox", param);
  return row;
}

/** Inboxes of the organization that are not deleted, oldest first. */
export async function listInboxes(db: DbOrTx, principal: Principal): Promise<{ inboxes: Inbox[] }> {
  const rows = await db
    .select()
    .from(inboxes)
    .where(and(eq(inboxes.orgId, principal.orgId), ne(inboxes.status, "deleted")))
    .orderBy(asc(inboxes.createdAt), asc(inboxes.id));
  return { inboxes: rows.map(toInbox) };
}

export async function getInbox(db: DbOrTx, principal: Principal, inboxId: string): Promise<{ inbox: Inbox }> {
  return { inbox: toInbox(await findInbox(db, principal, inboxId)) };
}

export interface CreateInboxInput {
  address: string;
  displayName?: string | null;
  mode?: InboxMode;
  agent?: string | null;
}

/** Creates an inbox on one of the organization's verified domains or on the shared domain. */
export async function createInbox(
  db: DbOrTx,
  principal: Principal,
  input: CreateInboxInput,
): Promise<{ inbox: Inbox }> {
  const address = input.address.trim().toLowerCase();
  const at = address.lastIndexOf("@");
  const local = address.slice(0, at);
  const domainName = address.slice(at + 1);
  if (at < 1 || !LOCAL_PART.test(local))
    throw invalidRequest(`"${input.address}" is not a valid inbox address.`, "address");
  return db.transaction(async (tx) => {
    const [domain] = await tx
      .select()
      .from(domains)
      .where(and(eq(domains.orgId, principal.orgId), eq(domains.name, domainName)));
    if (!domain)
      throw invalidRequest(`${domainName} is not a domain of this organization; add and verify it first.`, "address");
    if (domain.status !== "verified")
      throw invalidRequest(`${domainName} is not verified yet; publish its DNS records and verify it.`, "address");
    const [row] = await tx
      .insert(inboxes)
      .values({
        orgId: principal.orgId,
        domainId: domain.id,
        address,
        displayName: input.displayName ?? null,
        mode: input.mode ?? "agent",
        agent: input.agent ?? null,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new ApiError("conflict", `The address ${address} is taken.`, "address");
    // The inbox's own address is its first connection (inbound on it lands here).
    await addConnection(tx, row, INBOX_ADDRESS_CHANNEL, address);
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "inbox.created",
      resourceType: "inbox",
      resourceId: row.id,
      metadata: { address },
    });
    return { inbox: toInbox(row) };
  });
}

export interface UpdateInboxInput {
  displayName?: string | null;
  mode?: InboxMode;
  agent?: string | null;
  status?: "active" | "paused";
}

export async function updateInbox(
  db: DbOrTx,
  principal: Principal,
  inboxId: string,
  input: UpdateInboxInput,
): Promise<{ inbox: Inbox }> {
  return db.transaction(async (tx) => {
    const current = await findInbox(tx, principal, inboxId);
    if (current.status === "deleted") throw invalidRequest("A deleted inbox cannot be changed.", "inboxId");
    const [row] = await tx
      .update(inboxes)
      .set({ ...input, updatedAt: new Date() })
      .where(eq(inboxes.id, current.id))
      .returning();
    if (!row) throw notFound("inbox", "inboxId");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "inbox.updated",
      resourceType: "inbox",
      resourceId: row.id,
      metadata: { changed: Object.keys(input) },
    });
    return { inbox: toInbox(row) };
  });
}

/** Marks the inbox `deleted`: it neither sends nor receives; its messages remain readable. */
export async function deleteInbox(db: DbOrTx, principal: Principal, inboxId: string): Promise<{ inbox: Inbox }> {
  return db.transaction(async (tx) => {
    const current = await findInbox(tx, principal, inboxId);
    if (current.status === "deleted") {
      noAuditNeeded("the inbox was already deleted");
      return { inbox: toInbox(current) };
    }
    const [row] = await tx
      .update(inboxes)
      .set({ status: "deleted", updatedAt: new Date() })
      .where(eq(inboxes.id, current.id))
      .returning();
    if (!row) throw notFound("inbox", "inboxId");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "inbox.deleted",
      resourceType: "inbox",
      resourceId: row.id,
      metadata: { address: row.address },
    });
    return { inbox: toInbox(row) };
  });
}

/** The inbox at an address, any organization (inbound routing). */
export async function inboxByAddress(db: DbOrTx, address: string): Promise<InboxRow | null> {
  const [row] = await db.select().from(inboxes).where(eq(inboxes.address, address.trim().toLowerCase()));
  return row ?? null;
}

/** The inboxes of this service among `addresses` (normalized), by address in the order given: one query for all. */
export async function inboxesByAddress(
  db: DbOrTx,
  addresses: readonly string[],
  /** The rows, when the caller has read them already (every inbox among `addresses`). */
  known?: InboxRow[],
): Promise<Map<string, InboxRow>> {
  const wanted = [...new Set(addresses.map((a) => a.trim().toLowerCase()))];
  if (wanted.length === 0) return new Map();
  const rows = new Map(
    (known ?? (await db.select().from(inboxes).where(inArray(inboxes.address, wanted)))).map((r) => [r.address, r]),
  );
  return new Map(wanted.flatMap((a) => (rows.has(a) ? [[a, rows.get(a) as InboxRow] as const] : [])));
}
