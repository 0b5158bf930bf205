import { and, asc, desc, eq, ilike, inArray, or, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { contactHandles, contacts, organizations } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { ApiError, invalidRequest, notFound, notPermitted, uniqueViolation } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { listMessages } from "@/lib/messages/read";
import { type HandleChannel, normalizeHandle } from "./handles";
import { isUuid } from "@/lib/core/schemas";

type ContactRow = typeof contacts.$inferSelect;
type HandleRow = typeof contactHandles.$inferSelect;


export type ContactRef = { kind: "id"; id: string } | { kind: "alias"; alias: string } | { kind: "self" };

/** `@me`, `@alias`, `contact:<id>` or a bare id; null when the text is none of them. */
export function parseContactRef(ref: string): ContactRef | null {
  if (ref === "@me") return { kind: "self" };
  if (ref.startsWith("@") && ref.length > 1) return { kind: "alias", alias: ref.slice(1).toLowerCase() };
  const id = ref.startsWith("contact:") ? ref.slice("contact:".length) : ref;
  return isUuid(id) ? { kind: "id", id: id.toLowerCase() } : null;
}

/** True when `value` is written as a contact reference (`@…` or `contact:…`) rather than an address. */
export const isContactRef = (value: string) => value.startsWith("@") || value.startsWith("contact:");

export function toHandle(row: HandleRow) {
  return {
    object: "contact_handle" as const,
    id: row.id,
    contactId: row.contactId,
    channel: row.channel,
    value: row.value,
    label: row.label,
    isPrimary: row.isPrimary,
    verified: row.verified,
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toContact(row: ContactRow, handles?: HandleRow[]) {
  return {
    object: "contact" as const,
    id: row.id,
    projectId: row.orgId,
    userId: null,
    displayName: row.displayName,
    kind: row.kind,
    isSelf: row.kind === "self",
    alias: row.alias,
    info: row.info,
    metadata: row.metadata,
    avatarUrl: row.avatarUrl,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...(handles ? { handles: handles.map(toHandle) } : {}),
  };
}

/** The organization's `self` contact, made on first use (named after the organization). */
export async function selfContact(db: DbOrTx, orgId: string): Promise<ContactRow> {
  const [existing] = await db
    .select()
    .from(contacts)
    .where(and(eq(contacts.orgId, orgId), eq(contacts.kind, "self")))
    .limit(1);
  if (existing) return existing;
  const [org] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId));
  await db
    .insert(contacts)
    .values({ orgId, kind: "self", displayName: org?.name ?? "Me" })
    .onConflictDoNothing();
  const [row] = await db
    .select()
    .from(contacts)
    .where(and(eq(contacts.orgId, orgId), eq(contacts.kind, "self")))
    .limit(1);
  if (!row) throw new Error("self contact was not created");
  return row;
}

/** The contact a reference names in the organization; 404 naming `param` otherwise. */
export async function findContact(db: DbOrTx, orgId: string, ref: string, param = "contactRef"): Promise<ContactRow> {
  const parsed = parseContactRef(ref);
  if (!parsed) throw notFound("contact", param);
  if (parsed.kind === "self") return selfContact(db, orgId);
  const [row] = await db
    .select()
    .from(contacts)
    .where(and(eq(contacts.orgId, orgId), parsed.kind === "id" ? eq(contacts.id, parsed.id) : eq(contacts.alias, parsed.alias)))
    .limit(1);
  if (!row) throw notFound("contact", param);
  return row;
}

async function handlesOf(db: DbOrTx, contactId: string): Promise<HandleRow[]> {
  return db.select().from(contactHandles).where(eq(contactHandles.contactId, contactId)).orderBy(asc(contactHandles.createdAt), asc(contactHandles.id));
}

/**
 * The handle to reach a contact on a channel: its primary one, else its oldest. Null when it has
 * none on that channel.
 */
export async function handleFor(db: DbOrTx, contactId: string, channel: HandleChannel): Promise<HandleRow | null> {
  const [row] = await db
    .select()
    .from(contactHandles)
    .where(and(eq(contactHandles.contactId, contactId), eq(contactHandles.channel, channel)))
    .orderBy(desc(contactHandles.isPrimary), asc(contactHandles.createdAt))
    .limit(1);
  return row ?? null;
}

/**
 * The address a contact reference stands for in a send: the contact's primary (else oldest) handle
 * on the first of `channels` it has one on. 404 naming `param` for no such contact, 400 when it has
 * no handle on those channels.
 */
export async function contactAddress(db: DbOrTx, orgId: string, ref: string, channels: HandleChannel[], param: string): Promise<{ contactId: string; address: string }> {
  const contact = await findContact(db, orgId, ref, param);
  for (const channel of channels) {
    const handle = await handleFor(db, contact.id, channel);
    if (handle) return { contactId: contact.id, address: handle.value };
  }
  const name = contact.kind === "self" ? "@me" : contact.alias ? `@${contact.alias}` : contact.displayName;
  throw invalidRequest(`The contact ${name} has no ${channels.join(" or ")} address to send to.`, param);
}

/** The contact owning an address on one of the channels (inbound linking), or null. */
export async function contactByHandle(db: DbOrTx, orgId: string, channels: HandleChannel[], value: string): Promise<string | null> {
  if (channels.length === 0) return null;
  const [row] = await db
    .select({ contactId: contactHandles.contactId })
    .from(contactHandles)
    .where(and(eq(contactHandles.orgId, orgId), inArray(contactHandles.channel, channels), eq(contactHandles.value, value.toLowerCase())))
    .limit(1);
  return row?.contactId ?? null;
}

/** Turns a unique violation into the 409 the caller can act on. */
function conflictOf(err: unknown, where: { alias?: string | null; handleParam?: string }): never {
  const constraint = uniqueViolation(err);
  if (constraint === null) throw err;
  if (constraint.includes("alias") || (!constraint && where.alias)) throw new ApiError("conflict", `Another contact already has the alias "${where.alias}".`, "alias");
  throw new ApiError("conflict", "Another contact of this organization already has this handle.", where.handleParam ?? "value");
}

/** Makes `handleId` the only primary handle of its contact on its channel (before it is set). */
async function clearPrimary(tx: DbOrTx, contactId: string, channel: string): Promise<void> {
  await tx
    .update(contactHandles)
    .set({ isPrimary: false, updatedAt: new Date() })
    .where(and(eq(contactHandles.contactId, contactId), eq(contactHandles.channel, channel), eq(contactHandles.isPrimary, true)));
}

type HandleInput = { channel: HandleChannel; value: string; label?: string; isPrimary: boolean; metadata?: Record<string, unknown> };

export async function createContact(
  db: DbOrTx,
  principal: Principal,
  input: { displayName: string; alias?: string; kind: "person" | "agent"; info?: string; avatarUrl?: string; metadata?: Record<string, unknown>; handles?: HandleInput[] },
) {
  const handles = (input.handles ?? []).map((h, i) => ({ ...h, ...normalizeHandle(h, `handles[${i}]`) }));
  const primaries = new Set<string>();
  handles.forEach((h, i) => {
    if (!h.isPrimary) return;
    if (primaries.has(h.channel)) throw invalidRequest(`Only one ${h.channel} handle can be primary.`, `handles[${i}].isPrimary`);
    primaries.add(h.channel);
  });
  const alias = input.alias?.toLowerCase() ?? null;
  let failedAt = "";
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(contacts)
        .values({ orgId: principal.orgId, kind: input.kind, displayName: input.displayName, alias, info: input.info ?? null, avatarUrl: input.avatarUrl ?? null, metadata: input.metadata ?? {} })
        .returning();
      const contact = row as ContactRow;
      for (const [i, h] of handles.entries()) {
        failedAt = `handles[${i}].value`;
        await tx.insert(contactHandles).values({ orgId: principal.orgId, contactId: contact.id, channel: h.channel, value: h.value, label: h.label ?? null, isPrimary: h.isPrimary, metadata: h.metadata });
      }
      await recordAudit(tx, principal, { orgId: principal.orgId, action: "contact.created", resourceType: "contact", resourceId: contact.id, metadata: { alias, handles: handles.length } });
      return { contact: toContact(contact, await handlesOf(tx, contact.id)) };
    });
  } catch (err) {
    return conflictOf(err, { alias: failedAt ? null : alias, handleParam: failedAt });
  }
}

export async function getContact(db: DbOrTx, principal: Principal, ref: string) {
  const row = await findContact(db, principal.orgId, ref);
  return { contact: toContact(row, await handlesOf(db, row.id)) };
}

export async function listContacts(db: DbOrTx, principal: Principal, query: { limit: number; cursor?: string; kind?: "person" | "agent" | "self"; q?: string }) {
  const after = decodeCursor(query.cursor);
  const where: (SQL | undefined)[] = [eq(contacts.orgId, principal.orgId), keysetBefore(contacts.createdAt, contacts.id, after)];
  if (query.kind) where.push(eq(contacts.kind, query.kind));
  if (query.q) {
    const like = `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(
      or(
        ilike(contacts.displayName, like),
        ilike(contacts.alias, like),
        sql`exists (select 1 from ${contactHandles} h where h.contact_id = ${contacts.id} and h.value ilike ${like})`,
      ),
    );
  }
  const rows = await db
    .select()
    .from(contacts)
    .where(and(...where))
    .orderBy(desc(contacts.createdAt), desc(contacts.id))
    .limit(query.limit + 1);
  const { items, pagination } = toPage(rows, query.limit);
  return { object: "list" as const, data: items.map((r) => toContact(r)), pagination };
}

export async function updateContact(
  db: DbOrTx,
  principal: Principal,
  ref: string,
  input: { displayName?: string; alias?: string | null; kind?: "person" | "agent"; info?: string | null; avatarUrl?: string | null; metadata?: Record<string, unknown> },
) {
  const alias = input.alias === undefined ? undefined : (input.alias?.toLowerCase() ?? null);
  try {
    return await db.transaction(async (tx) => {
      const row = await findContact(tx, principal.orgId, ref);
      if (row.kind === "self" && input.kind !== undefined) throw invalidRequest("The organization's own contact stays `self`.", "kind");
      const [updated] = await tx
        .update(contacts)
        .set({
          ...(input.displayName !== undefined ? { displayName: input.displayName } : {}),
          ...(alias !== undefined ? { alias } : {}),
          ...(input.kind !== undefined ? { kind: input.kind } : {}),
          ...(input.info !== undefined ? { info: input.info } : {}),
          ...(input.avatarUrl !== undefined ? { avatarUrl: input.avatarUrl } : {}),
          ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
          updatedAt: new Date(),
        })
        .where(eq(contacts.id, row.id))
        .returning();
      await recordAudit(tx, principal, { orgId: principal.orgId, action: "contact.updated", resourceType: "contact", resourceId: row.id, metadata: { fields: Object.keys(input) } });
      return { contact: toContact(updated as ContactRow, await handlesOf(tx, row.id)) };
    });
  } catch (err) {
    return conflictOf(err, { alias });
  }
}

export async function deleteContact(db: DbOrTx, principal: Principal, ref: string) {
  return db.transaction(async (tx) => {
    const row = await findContact(tx, principal.orgId, ref);
    if (row.kind === "self") throw notPermitted("The organization's own contact (@me) cannot be deleted.", "contactRef");
    await tx.delete(contacts).where(eq(contacts.id, row.id));
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "contact.deleted", resourceType: "contact", resourceId: row.id, metadata: { alias: row.alias } });
    return { deleted: true as const, id: row.id };
  });
}

async function findHandle(db: DbOrTx, contact: ContactRow, handleId: string): Promise<HandleRow> {
  const [row] = await db
    .select()
    .from(contactHandles)
    .where(and(eq(contactHandles.contactId, contact.id), eq(contactHandles.id, handleId)))
    .limit(1);
  if (!row) throw notFound("contact handle", "handleId");
  return row;
}

export async function addContactHandle(db: DbOrTx, principal: Principal, ref: string, input: HandleInput) {
  const h = { ...input, ...normalizeHandle(input, "") };
  try {
    return await db.transaction(async (tx) => {
      const contact = await findContact(tx, principal.orgId, ref);
      if (h.isPrimary) await clearPrimary(tx, contact.id, h.channel);
      const [row] = await tx
        .insert(contactHandles)
        .values({ orgId: principal.orgId, contactId: contact.id, channel: h.channel, value: h.value, label: h.label ?? null, isPrimary: h.isPrimary, metadata: h.metadata })
        .returning();
      await tx.update(contacts).set({ updatedAt: new Date() }).where(eq(contacts.id, contact.id));
      await recordAudit(tx, principal, { orgId: principal.orgId, action: "contact.handle_added", resourceType: "contact", resourceId: contact.id, metadata: { handleId: row?.id, channel: h.channel } });
      return { contactHandle: toHandle(row as HandleRow) };
    });
  } catch (err) {
    return conflictOf(err, {});
  }
}

export async function updateContactHandle(
  db: DbOrTx,
  principal: Principal,
  ref: string,
  handleId: string,
  input: { value?: string; label?: string | null; isPrimary?: boolean; metadata?: Record<string, unknown> },
) {
  try {
    return await db.transaction(async (tx) => {
      const contact = await findContact(tx, principal.orgId, ref);
      const current = await findHandle(tx, contact, handleId);
      const channel = current.channel as HandleChannel;
      const next =
        input.value !== undefined || input.metadata !== undefined
          ? normalizeHandle({ channel, value: input.value ?? current.value, metadata: input.metadata ?? current.metadata }, "")
          : null;
      if (input.isPrimary) await clearPrimary(tx, contact.id, channel);
      const [row] = await tx
        .update(contactHandles)
        .set({
          ...(next ? { value: next.value, metadata: next.metadata } : {}),
          ...(input.label !== undefined ? { label: input.label } : {}),
          ...(input.isPrimary !== undefined ? { isPrimary: input.isPrimary } : {}),
          updatedAt: new Date(),
        })
        .where(eq(contactHandles.id, current.id))
        .returning();
      await recordAudit(tx, principal, { orgId: principal.orgId, action: "contact.handle_updated", resourceType: "contact", resourceId: contact.id, metadata: { handleId, fields: Object.keys(input) } });
      return { contactHandle: toHandle(row as HandleRow) };
    });
  } catch (err) {
    return conflictOf(err, {});
  }
}

export async function deleteContactHandle(db: DbOrTx, principal: Principal, ref: string, handleId: string) {
  return db.transaction(async (tx) => {
    const contact = await findContact(tx, principal.orgId, ref);
    const current = await findHandle(tx, contact, handleId);
    await tx.delete(contactHandles).where(eq(contactHandles.id, current.id));
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "contact.handle_deleted", resourceType: "contact", resourceId: contact.id, metadata: { handleId, channel: current.channel } });
    return { deleted: true as const, id: current.id };
  });
}

/** Messages from or to any of the contact's email and a2a handles. */
export async function listContactMessages(db: DbOrTx, principal: Principal, ref: string, query: { limit: number; cursor?: string }) {
  const contact = await findContact(db, principal.orgId, ref);
  const addresses = (
    await db
      .select({ value: contactHandles.value })
      .from(contactHandles)
      .where(and(eq(contactHandles.contactId, contact.id), inArray(contactHandles.channel, ["email", "a2a"])))
  ).map((h) => h.value);
  if (addresses.length === 0) return { messages: [], pagination: { nextCursor: null, hasMore: false } };
  return listMessages(db, principal, { ...query, addresses });
}
