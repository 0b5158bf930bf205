import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { contacts } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { notPermitted } from "@/lib/core/errors";
import { findContact } from "./contact";

export async function deleteContact(db: DbOrTx, principal: Principal, ref: string) {
  return db.transaction(async (tx) => {
    const row = await findContact(tx, principal.orgId, ref);
    if (row.kind === "self")
      throw notPermitted("The organization's own contact (@me) cannot be deleted.", "contactRef");
    await tx.delete(contacts).where(eq(contacts.id, row.id));
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "contact.deleted",
      resourceType: "contact",
      resourceId: row.id,
      metadata: { alias: row.alias },
    });
    return { deleted: true as const, id: row.id };
  });
}
