import { and, desc, eq, ilike, inArray, or, type SQL, sql } from "drizzle-orm";
import { MESSAGE_HANDLE_KINDS } from "@/lib/channels/definitions";
import type { DbOrTx } from "@/db";
import { contactHandles, contacts } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { listMessages } from "@/lib/messages/read";
import { findContact, handlesOf, toContact } from "./contact";

export async function getContact(db: DbOrTx, principal: Principal, ref: string) {
  const row = await findContact(db, principal.orgId, ref);
  return { contact: toContact(row, await handlesOf(db, row.id)) };
}

export async function listContacts(
  db: DbOrTx,
  principal: Principal,
  query: { limit: number; cursor?: string; kind?: "person" | "agent" | "self"; q?: string },
) {
  const after = decodeCursor(query.cursor);
  const where: (SQL | undefined)[] = [
    eq(contacts.orgId, principal.orgId),
    keysetBefore(contacts.createdAt, contacts.id, after),
  ];
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

/** Messages from or to any of the contact's handles that are message addresses (`MESSAGE_HANDLE_KINDS`). */
export async function listContactMessages(
  db: DbOrTx,
  principal: Principal,
  ref: string,
  query: { limit: number; cursor?: string },
) {
  const contact = await findContact(db, principal.orgId, ref);
  const addresses = (
    await db
      .select({ value: contactHandles.value })
      .from(contactHandles)
      .where(and(eq(contactHandles.contactId, contact.id), inArray(contactHandles.channel, MESSAGE_HANDLE_KINDS)))
  ).map((h) => h.value);
  if (addresses.length === 0) return { messages: [], pagination: { nextCursor: null, hasMore: false } };
  return listMessages(db, principal, { ...query, addresses });
}
