import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { contacts } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { invalidRequest } from "@/lib/core/errors";
import { conflictOf, type ContactRow, findContact, handlesOf, toContact } from "./contact";

export async function updateContact(
  db: DbOrTx,
  principal: Principal,
  ref: string,
  input: {
    displayName?: string;
    alias?: string | null;
    kind?: "person" | "agent";
    info?: string | null;
    avatarUrl?: string | null;
    metadata?: Record<string, unknown>;
  },
) {
  const alias = input.alias === undefined ? undefined : (input.alias?.toLowerCase() ?? null);
  try {
    return await db.transaction(async (tx) => {
      const row = await findContact(tx, principal.orgId, ref);
      if (row.kind === "self" && input.kind !== undefined)
        throw invalidRequest("The organization's own contact stays `self`.", "kind");
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
      await recordAudit(tx, principal, {
        orgId: principal.orgId,
        action: "contact.updated",
        resourceType: "contact",
        resourceId: row.id,
        metadata: { fields: Object.keys(input) },
      });
      return { contact: toContact(updated as ContactRow, await handlesOf(tx, row.id)) };
    });
  } catch (err) {
    return conflictOf(err, { alias });
  }
}
