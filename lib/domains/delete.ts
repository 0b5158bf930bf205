import { and, eq, ne } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { domains, inboxes } from "@/db/schema";
import { ApiError } from "@/lib/core/errors";
import { recordAudit } from "@/lib/core/audit";
import type { Principal } from "@/lib/auth/principal";
import { findDomain, refuseShared } from "./domain";

/** Deletes a domain that no inbox uses any more. The shared domain is read-only. */
export async function deleteDomain(
  db: DbOrTx,
  principal: Principal,
  domainId: string,
): Promise<{ deleted: true; id: string }> {
  const row = await findDomain(db, principal, domainId);
  refuseShared(row);
  return db.transaction(async (tx) => {
    const [inUse] = await tx
      .select({ id: inboxes.id })
      .from(inboxes)
      .where(and(eq(inboxes.domainId, row.id), ne(inboxes.status, "deleted")))
      .limit(1);
    if (inUse) throw new ApiError("conflict", "Inboxes still use this domain; delete them first.", "domainId");
    await tx.delete(inboxes).where(eq(inboxes.domainId, row.id));
    await tx.delete(domains).where(eq(domains.id, row.id));
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "domain.deleted",
      resourceType: "domain",
      resourceId: row.id,
      metadata: { name: row.name },
    });
    return { deleted: true as const, id: row.id };
  });
}
