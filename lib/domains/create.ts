import type { DbOrTx } from "@/db";
import { domains } from "@/db/schema";
import { ApiError } from "@/lib/core/errors";
import { recordAudit } from "@/lib/core/audit";
import type { Principal } from "@/lib/auth/principal";
import { generateDkimKey } from "./dkim";
import { type Domain, normalizeDomainName, toDomain } from "./domain";

/** Adds a domain (`pending`) with a new DKIM key and returns the records to publish. */
export async function createDomain(
  db: DbOrTx,
  principal: Principal,
  input: { name: string },
): Promise<{ domain: Domain }> {
  const name = normalizeDomainName(input.name);
  const key = generateDkimKey();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(domains)
      .values({
        orgId: principal.orgId,
        name,
        status: "pending",
        dkimSelector: key.selector,
        dkimPrivateKey: key.privateKey,
        dkimPublicKey: key.publicKey,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new ApiError("conflict", `The domain ${name} is already added to this organization.`, "name");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "domain.created",
      resourceType: "domain",
      resourceId: row.id,
      metadata: { name },
    });
    return { domain: await toDomain(tx, row) };
  });
}
