import type { DbOrTx } from "@/db";
import { contactHandles, contacts } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { invalidRequest } from "@/lib/core/errors";
import { normalizeHandle } from "./handles";
import { conflictOf, type ContactRow, type HandleInput, handlesOf, toContact } from "./contact";

export async function createContact(
  db: DbOrTx,
  principal: Principal,
  input: {
    displayName: string;
    alias?: string;
    kind: "person" | "agent";
    info?: string;
    avatarUrl?: string;
    metadata?: Record<string, unknown>;
    handles?: HandleInput[];
  },
) {
  const handles = (input.handles ?? []).map((h, i) => ({ ...h, ...normalizeHandle(h, `handles[${i}]`) }));
  const primaries = new Set<string>();
  handles.forEach((h, i) => {
    if (!h.isPrimary) return;
    if (primaries.has(h.channel))
      throw invalidRequest(`Only one ${h.channel} handle can be primary.`, `handles[${i}].isPrimary`);
    primaries.add(h.channel);
  });
  const alias = input.alias?.toLowerCase() ?? null;
  let failedAt = "";
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(contacts)
        .values({
          orgId: principal.orgId,
          kind: input.kind,
          displayName: input.displayName,
          alias,
          info: input.info ?? null,
          avatarUrl: input.avatarUrl ?? null,
          metadata: input.metadata ?? {},
        })
        .returning();
      const contact = row as ContactRow;
      for (const [i, h] of handles.entries()) {
        failedAt = `handles[${i}].value`;
        await tx.insert(contactHandles).values({
          orgId: principal.orgId,
          contactId: contact.id,
          channel: h.channel,
          value: h.value,
          label: h.label ?? null,
          isPrimary: h.isPrimary,
          metadata: h.metadata,
        });
      }
      await recordAudit(tx, principal, {
        orgId: principal.orgId,
        action: "contact.created",
        resourceType: "contact",
        resourceId: contact.id,
        metadata: { alias, handles: handles.length },
      });
      return { contact: toContact(contact, await handlesOf(tx, contact.id)) };
    });
  } catch (err) {
    return conflictOf(err, { alias: failedAt ? null : alias, handleParam: failedAt });
  }
}
