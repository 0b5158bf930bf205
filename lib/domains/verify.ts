import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { domains } from "@/db/schema";
import { notFound } from "@/lib/core/errors";
import { recordAudit } from "@/lib/core/audit";
import type { Principal } from "@/lib/auth/principal";
import { mailHost } from "@/lib/env";
import { appendEvent } from "@/lib/events/ledger";
import { mxHosts, txtRecords } from "./dns";
import { type Domain, expectedRecords, findDomain, keyOf, type Purpose, type RecordStatus, toDomain } from "./domain";

/**
 * Rechecks the domain's records with real DNS lookups. All four published: `pending` → `verified`
 * (emitting `domain.verified`). A verified domain stays verified; the record statuses show what
 * the latest check found.
 */
export async function verifyDomain(db: DbOrTx, principal: Principal, domainId: string): Promise<{ domain: Domain }> {
  const row = await findDomain(db, principal, domainId);
  if (row.isShared) return { domain: await toDomain(db, row) };
  const key = await keyOf(db, row);
  const expected = expectedRecords(row.name, key);
  const dkim = expected.find((r) => r.purpose === "dkim");
  const [mx, apexTxt, dkimTxt, dmarcTxt] = await Promise.all([
    mxHosts(row.name),
    txtRecords(row.name),
    txtRecords(dkim?.name ?? ""),
    txtRecords(`_dmarc.${row.name}`),
  ]);
  const dkimP = /p=([^;\s]+)/.exec(dkim?.value ?? "")?.[1];
  const found: Record<Purpose, boolean> = {
    mx: mx.includes(mailHost()),
    spf: apexTxt.some((t) => t.startsWith("v=spf1") && t.includes(`a:${mailHost()}`)),
    dkim: dkimTxt.some((t) => t.replace(/\s+/g, "").includes(`p=${dkimP}`)),
    dmarc: dmarcTxt.some((t) => t.startsWith("v=DMARC1")),
  };
  const recordStatus = Object.fromEntries(
    Object.entries(found).map(([k, ok]) => [k, ok ? "verified" : "failed"]),
  ) as Record<Purpose, RecordStatus>;
  const allFound = Object.values(found).every(Boolean);
  return db.transaction(async (tx) => {
    const becameVerified = allFound && row.status !== "verified";
    const [updated] = await tx
      .update(domains)
      .set({
        recordStatus,
        lastCheckedAt: new Date(),
        ...(becameVerified ? { status: "verified" as const, verifiedAt: new Date() } : {}),
      })
      .where(eq(domains.id, row.id))
      .returning();
    if (!updated) throw notFound("domain", "domainId");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "domain.verification_checked",
      resourceType: "domain",
      resourceId: row.id,
      metadata: { found },
    });
    if (becameVerified) {
      await appendEvent(tx, {
        orgId: principal.orgId,
        type: "domain.verified",
        partitionKey: `domain:${row.id}`,
        data: { domainId: row.id, name: row.name, verifiedAt: updated.verifiedAt?.toISOString() ?? null },
      });
    }
    return { domain: await toDomain(tx, updated) };
  });
}
