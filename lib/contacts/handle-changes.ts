import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { contactHandles, contacts } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { notFound } from "@/lib/core/errors";
import { type HandleChannel, normalizeHandle } from "./handles";
import { conflictOf, type ContactRow, findContact, type HandleInput, type HandleRow, toHandle } from "./contact";

/** Makes `handleId` the only primary handle of its contact on its channel (before it is set). */
async function clearPrimary(tx: DbOrTx, contactId: string, channel: string): Promise<void> {
  await tx
    .update(contactHandles)
    .set({ isPrimary: false, updatedAt: new Date() })
    .where(
      and(
        eq(contactHandles.contactId, contactId),
        eq(contactHandles.channel, channel),
        eq(contactHandles.isPrimary, true),
      ),
    );
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
        .values({
          orgId: principal.orgId,
          contactId: contact.id,
          channel: h.channel,
          value: h.value,
          label: h.label ?? null,
          isPrimary: h.isPrimary,
          metadata: h.metadata,
        })
        .returning();
      await tx.update(contacts).set({ updatedAt: new Date() }).where(eq(contacts.id, contact.id));
      await recordAudit(tx, principal, {
        orgId: principal.orgId,
        action: "contact.handle_added",
        resourceType: "contact",
        resourceId: contact.id,
        metadata: { handleId: row?.id, channel: h.channel },
      });
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
          ? normalizeHandle(
              { channel, value: input.value ?? current.value, metadata: input.metadata ?? current.metadata },
              "",
            )
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
      await recordAudit(tx, principal, {
        orgId: principal.orgId,
        action: "contact.handle_updated",
        resourceType: "contact",
        resourceId: contact.id,
        metadata: { handleId, fields: Object.keys(input) },
      });
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
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "contact.handle_deleted",
      resourceType: "contact",
      resourceId: contact.id,
      metadata: { handleId, channel: current.channel },
    });
    return { deleted: true as const, id: current.id };
  });
}
