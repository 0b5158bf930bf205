import { asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { domains } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { type Domain, findDomain, toDomain } from "./domain";

export async function listDomains(db: DbOrTx, principal: Principal): Promise<{ domains: Domain[] }> {
  const rows = await db
    .select()
    .from(domains)
    .where(eq(domains.orgId, principal.orgId))
    .orderBy(asc(domains.createdAt), asc(domains.id));
  return { domains: await Promise.all(rows.map((r) => toDomain(db, r))) };
}

export async function getDomain(db: DbOrTx, principal: Principal, domainId: string): Promise<{ domain: Domain }> {
  return { domain: await toDomain(db, await findDomain(db, principal, domainId)) };
}
