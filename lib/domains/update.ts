import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { domains } from "@/db/schema";
import { notFound } from "@/lib/core/errors";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import type { Principal } from "@/lib/auth/principal";
import { generateDkimKey } from "./dkim";
import { type Domain, findDomain, refuseShared, toDomain } from "./domain";

/** Rotates the DKIM key (new selector to publish). The shared domain is read-only. */
export async function updateDomain(
  db: DbOrTx,
  principal: Principal,
  domainId: string,
  input: { rotateDkimKey?: boolean },
): Promise<{ domain: Domain }> {
  const row = await findDomain(db, principal, domainId);
  refuseShared(row);
  if (!input.rotateDkimKey) {
    noAuditNeeded("nothing to change");
    return { domain: await toDomain(db, row) };
  }
  const key = generateDkimKey();
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(domains)
      .set({
        dkimSelector: key.selector,
        dkimPrivateKey: key.privateKey,
        dkimPublicKey: key.publicKey,
        recordStatus: { ...row.recordStatus, dkim: "pending" },
      })
      .where(eq(domains.id, row.id))
      .returning();
    if (!updated) throw notFound("domain", "domainId");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "domain.dkim_rotated",
      resourceType: "domain",
      resourceId: row.id,
      metadata: { selector: key.selector },
    });
    return { domain: await toDomain(tx, updated) };
  });
}
