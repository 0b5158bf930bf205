import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { contactHandles } from "@/db/schema";
import { invalidRequest } from "@/lib/core/errors";
import { type HandleChannel } from "./handles";
import { findContact, type HandleRow } from "./contact";

/** True when `value` is written as a contact reference (`@…` or `contact:…`) rather than an address. */
export const isContactRef = (value: string) => value.startsWith("@") || value.startsWith("contact:");

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
export async function contactAddress(
  db: DbOrTx,
  orgId: string,
  ref: string,
  channels: HandleChannel[],
  param: string,
): Promise<{ contactId: string; address: string }> {
  const contact = await findContact(db, orgId, ref, param);
  for (const channel of channels) {
    const handle = await handleFor(db, contact.id, channel);
    if (handle) return { contactId: contact.id, address: handle.value };
  }
  const name = contact.kind === "self" ? "@me" : contact.alias ? `@${contact.alias}` : contact.displayName;
  throw invalidRequest(`The contact ${name} has no ${channels.join(" or ")} address to send to.`, param);
}

/** The contact owning an address on one of the channels (inbound linking), or null. */
export async function contactByHandle(
  db: DbOrTx,
  orgId: string,
  channels: HandleChannel[],
  value: string,
): Promise<string | null> {
  if (channels.length === 0) return null;
  const [row] = await db
    .select({ contactId: contactHandles.contactId })
    .from(contactHandles)
    .where(
      and(
        eq(contactHandles.orgId, orgId),
        inArray(contactHandles.channel, channels),
        // Stored in each kind's normal form: addresses lowercase, Slack ids uppercase.
        inArray(contactHandles.value, [...new Set([value, value.toLowerCase()])]),
      ),
    )
    .limit(1);
  return row?.contactId ?? null;
}
